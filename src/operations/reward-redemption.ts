import type { CallOptions } from '../call-options'
import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { Campaign } from '../model/campaign'
import type { Customer } from '../model/customer'
import type { IdempotencyRecord } from '../model/idempotency'
import type { Reward } from '../model/loyalty'
import type { CalculatedOrder } from '../model/order'
import type { Redemption } from '../model/redemption'
import type { Voucher } from '../model/voucher'
import type { Stored } from '../ports'
import { evaluateValidationRule, redeemableLabel } from '../rules/conditions'
import { payWithPoints, rewardCost, tierRewardMapping } from '../rules/rewards'
import { redeemRewardInput } from '../schema/loyalty'
import { parse } from '../schema/parse'
import { creditCampaignCard, takeBackCredit } from './campaign-credit'
import { type Context, must, type Tx } from './context'
import { simpleCustomer } from './customers'
import { withIdempotency } from './idempotency'
import { memberCard } from './loyalties'
import { afterPointsChanged } from './loyalty-earning'
import { type CardState, loadCard, spendablePoints, spendCard, updateCardVoucher } from './loyalty-ledger'
import { publishCode } from './loyalty-members'
import { memberTier } from './loyalty-tiers'
import { enforceMetadata } from './metadata-schemas'
import { calculateOrder } from './orders'
import { redemptionVoucherExtras, withExtras } from './redemption-voucher'
import { withoutBookkeeping } from './redemption-wire'
import { hashTrackingId } from './stackable/tracking'
import { rulesAssignedTo } from './validation-rules'

/**
 * `loyalties.redeemReward` (docs/concepts.md#rewards, docs/concepts.md#pay-with-points,
 * docs/behaviour.md#pay-with-points, docs/behaviour.md#events): a member spends points on a reward assigned
 * to the card's program. The points, the reward's stock and `redeemed`, what the reward gives, and the
 * redemption record commit together, so concurrent redemptions on one card or one reward never overspend (a
 * conflicting commit re-reads and recomputes).
 */
export async function redeemReward(
  ctx: Context,
  campaignId: string | null,
  memberId: string,
  body: unknown,
  options?: CallOptions,
): Promise<Redemption> {
  const input = parse(redeemRewardInput, body)
  const card0 = await memberCard(ctx, campaignId, memberId)
  const call = {
    operation: 'loyalties.redeemReward',
    input: { campaignId, memberId: card0.value.id, ...input },
    reference: (r: Redemption) => ({ ids: [r.id], status: r.status }),
    replay: async (record: IdempotencyRecord) =>
      withoutBookkeeping((await must(ctx, 'redemptions', record.result_ids[0] ?? '', 'redemption')).value),
  }
  return withIdempotency(ctx, options, call, async (tx) => {
    const stored = await tx.store.vouchers.get(card0.value.id)
    if (!stored) throw EngineError.notFound('voucher', memberId, 'memberId')
    const card = await loadCard(tx, stored)
    const campaign = await tx.store.campaigns.get(stored.value.campaign_id ?? '')
    if (!campaign) throw EngineError.notFound('campaign', stored.value.campaign_id ?? '')
    const reward = await tx.store.rewards.get(input.reward.id)
    if (!reward) throw EngineError.notFound('reward', input.reward.id)
    const assignment = (
      await tx.store.reward_assignments.list({
        where: { related_object_id: campaign.value.id, reward_id: reward.value.id },
      })
    ).data[0]
    if (!assignment) {
      throw new EngineError({
        code: 400,
        key: 'reward_not_assigned',
        message: 'Reward not assigned to the campaign',
        details: `Reward ${reward.value.id} is not assigned to campaign ${campaign.value.id}`,
        path: 'reward.id',
      })
    }
    const holderId = stored.value.holder_id
    const holder = holderId ? await tx.store.customers.get(holderId) : undefined
    if (!holder) {
      throw new EngineError({
        code: 400,
        key: 'loyalty_card_not_assigned',
        message: 'Loyalty card not assigned',
        details: `Loyalty card ${stored.value.code} has no holder; assign it with createMember first`,
      })
    }
    const metadata = await enforceMetadata(tx, 'redemption', input.metadata)
    const tier = await memberTier(tx, card)
    const mapping = tierRewardMapping(tier, reward.value.id)

    let points: number
    let order: CalculatedOrder | null = null
    if (reward.value.type === 'COIN') {
      if (!input.order) throw EngineError.invalid('order', 'is required to pay with points')
      const coin = reward.value.parameters.coin
      if (!coin) throw new Error(`reward ${reward.value.id} has no coin parameters`)
      if (mapping?.type === 'CUSTOM')
        throw EngineError.invalid('reward.id', 'a CUSTOM tier mapping does not apply to pay with points')
      order = calculateOrder(input.order)
      const paid = payWithPoints(coin, {
        remainingTotal: order.total_amount,
        balance: spendablePoints(tx, card),
        requestedPoints: input.reward.points ?? null,
        // The spec: "When the card balance is lower than the points, only the available points are applied."
        capAtBalance: true,
      })
      if (!paid.ok) {
        if (paid.reason === 'loyalty_card_points_exceeded') throw pointsExceeded(paid.requested, paid.balance)
        throw EngineError.invalid('reward.points', 'must be a positive integer')
      }
      points = paid.points
      order = withDiscount(order, paid.discount)
    } else {
      const cost = rewardCost(reward.value, assignment.value, mapping)
      if (!cost.ok) throw EngineError.invalid('reward.id', `the reward's points cost is not usable (${cost.reason})`)
      points = cost.points
    }
    await checkRewardAssignmentRules(tx, assignment.value.id, {
      order: order ?? (input.order ? calculateOrder(input.order) : null),
      customer: holder.value,
      tierId: tier?.id ?? null,
      pointsUsed: points,
      metadata,
    })
    const { redemption, extras } = await recordRewardRedemption(tx, {
      card,
      campaign: campaign.value,
      reward,
      assignmentId: assignment.value.id,
      holder: holder.value,
      tierId: tier?.id ?? null,
      points,
      order,
      metadata,
      channel: { channel_id: null, channel_type: 'API' },
    })
    await afterPointsChanged(tx, campaign.value, card, new Set())
    return withoutBookkeeping({ ...redemption, voucher: withExtras(card.voucher, extras) })
  })
}

interface RewardRedemptionInput {
  card: CardState
  campaign: Campaign
  reward: Stored<Reward>
  assignmentId: string
  holder: Customer
  tierId: string | null
  points: number
  order: CalculatedOrder | null
  metadata: Record<string, unknown>
  channel: Redemption['channel']
}

/**
 * Spends the points, counts the reward, gives it, and records the redemption with its events; the
 * caller recalculates the tier afterwards. The reward is read as this transaction last wrote it, so
 * several redemptions of one reward in one transaction (auto-redeem) count each.
 */
export async function recordRewardRedemption(
  tx: Tx,
  input: RewardRedemptionInput,
): Promise<{ redemption: Redemption; extras: Awaited<ReturnType<typeof redemptionVoucherExtras>> }> {
  const { card, campaign, holder, points, order, metadata } = input
  const current = latestReward(tx, input.reward)
  if (current.type === 'MATERIAL' && current.stock !== null && current.stock <= 0) {
    throw new EngineError({
      code: 400,
      key: 'reward_out_of_stock',
      message: 'Reward out of stock',
      details: `Reward ${current.id} has no stock left`,
      path: 'reward.id',
    })
  }
  let taken: { bucketId: string; points: number }[] = []
  if (points > 0) {
    const spent = spendCard(tx, card, points, 'redeemed')
    if (!spent.ok) throw pointsExceeded(spent.requested, spent.available)
    taken = spent.taken
  }
  updateCardVoucher(tx, card, (v) => ({
    ...v,
    redemption: { ...v.redemption, redeemed_quantity: v.redemption.redeemed_quantity + 1 },
  }))
  const next: Reward = {
    ...current,
    stock: current.type === 'MATERIAL' && current.stock !== null ? current.stock - 1 : current.stock,
    redeemed: (current.redeemed ?? 0) + 1,
    updated_at: tx.nowIso,
  }
  tx.update('rewards', input.reward, next)
  const issued = await giveReward(tx, current, campaign, holder)
  const customer = simpleCustomer(holder)
  const extras = await redemptionVoucherExtras(tx.store, card.voucher, holder)
  const redemption: Redemption = {
    id: tx.id(ID_PREFIX.redemption),
    object: 'redemption',
    date: tx.nowIso,
    customer_id: holder.id,
    tracking_id: holder.source_id === null ? null : hashTrackingId(holder.source_id),
    metadata,
    amount: points,
    points_taken: taken,
    redemption: null,
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    channel: input.channel,
    customer,
    related_object_type: 'voucher',
    related_object_id: card.voucher.id,
    related_object_parent_id: card.voucher.campaign_id,
    ...(order ? { order } : {}),
    reward: {
      ...next,
      customer,
      assignment_id: input.assignmentId,
      voucher: issued,
      loyalty_tier_id: input.tierId,
    },
    loyalty_card: { points },
    voucher: withExtras(card.voucher, extras),
  }
  tx.insert('redemptions', redemption)
  const filters = { campaign_id: campaign.id, campaign_type: campaign.campaign_type }
  const group_id = tx.id('v_grp_')
  const data = {
    redemption: { id: redemption.id },
    reward: { id: current.id, type: current.type, name: current.name },
    points,
  }
  tx.emit('customer.reward_redemptions.created', holder.id, data, { ...filters, group_id })
  tx.emit(
    current.type === 'MATERIAL' ? 'customer.reward_redemptions.pending' : 'customer.reward_redemptions.completed',
    holder.id,
    data,
    { ...filters, group_id },
  )
  tx.emit('customer.rewarded', holder.id, data, { ...filters, category: 'EFFECT', group_id })
  return { redemption, extras }
}

/** The reward as this transaction last wrote it, else as read. */
export function latestReward(tx: Tx, stored: Stored<Reward>): Reward {
  for (let i = tx.writes.length - 1; i >= 0; i--) {
    const w = tx.writes[i]
    if (w?.op === 'put' && w.collection === 'rewards' && (w.value as Reward).id === stored.value.id) {
      return w.value as Reward
    }
  }
  return stored.value
}

/**
 * Refuses a reward redemption whose assignment's validation rules say no, with the first failing
 * rule's error (`redemption_rules_violated` for `redemption.reward.pay_with_points.points_used`,
 * `order_rules_violated`, `customer_rules_violated`…), its details naming the rule's id.
 */
export async function checkRewardAssignmentRules(
  tx: Tx,
  assignmentId: string,
  input: {
    order: CalculatedOrder | null
    customer: Customer
    tierId: string | null
    pointsUsed: number
    metadata: Record<string, unknown>
  },
): Promise<void> {
  const rules = await rulesAssignedTo(tx.store, [assignmentId])
  const c = input.customer
  for (const rule of rules) {
    const verdict = evaluateValidationRule(
      rule,
      {
        order: input.order ?? {},
        customer: {
          id: c.id,
          source_id: c.source_id,
          metadata: c.metadata,
          segments: c.segments ?? [],
          loyalty_tiers: input.tierId === null ? [] : [input.tierId],
        },
        redemption: { metadata: input.metadata, points_used: input.pointsUsed },
        now: tx.now,
        timeZone: tx.ctx.config.timezone,
      },
      { subject: redeemableLabel('LOYALTY_CARD') },
    )
    if (verdict.passed || !verdict.error) continue
    const e = verdict.error
    throw new EngineError({
      code: 400,
      key: e.key,
      message: e.error?.message ?? e.message,
      details: `${e.details} (${rule.name})`,
      path: 'reward.id',
    })
  }
}

function pointsExceeded(requested: number, balance: number): EngineError {
  return new EngineError({
    code: 400,
    key: 'loyalty_card_points_exceeded',
    message: 'Loyalty card points exceeded',
    details: `The reward needs ${requested} points; the card has ${balance} spendable`,
    path: 'reward',
  })
}

function withDiscount(order: CalculatedOrder, discount: number): CalculatedOrder {
  return {
    ...order,
    discount_amount: order.discount_amount + discount,
    total_discount_amount: order.total_discount_amount + discount,
    applied_discount_amount: discount,
    total_applied_discount_amount: order.total_applied_discount_amount + discount,
    total_amount: order.total_amount - discount,
  }
}

/**
 * What a CAMPAIGN reward gives: a coupon published to the member, credits on the member's gift card
 * (a card is published first when they hold none), or points on their card of another program
 * (joining it when needed). COIN and MATERIAL give nothing here.
 */
async function giveReward(tx: Tx, reward: Reward, ownCampaign: Campaign, customer: Customer): Promise<Voucher | null> {
  if (reward.type !== 'CAMPAIGN') return null
  const ref = reward.parameters.campaign
  if (!ref) throw new Error(`reward ${reward.id} has no campaign parameters`)
  const target = await tx.store.campaigns.get(ref.id)
  if (!target) throw EngineError.notFound('campaign', ref.id)
  const type = target.value.campaign_type
  switch (type) {
    case 'DISCOUNT_COUPONS':
      return (await publishCode(tx, target, customer)).value
    case 'GIFT_VOUCHERS':
      return creditCampaignCard(tx, target, customer, ref.balance ?? 0, rewardOrigin(reward))
    case 'LOYALTY_PROGRAM':
      if (target.value.id === ownCampaign.id)
        throw EngineError.invalid('reward.id', 'a loyalty program cannot reward points of itself')
      return creditCampaignCard(tx, target, customer, ref.balance ?? 0, rewardOrigin(reward))
    case 'REFERRAL_PROGRAM':
    case 'PROMOTION':
      throw EngineError.invalid('reward.id', `a ${type} campaign cannot be a reward`)
    default: {
      const _never: never = type
      return _never
    }
  }
}

function rewardOrigin(reward: Reward) {
  return { source: { type: 'reward' as const, id: reward.id }, data: { reward: { id: reward.id } }, path: 'reward.id' }
}

/** What a reward redemption recorded of its reward (`redemption.reward`). */
interface RedeemedReward {
  id: string
  name: string
  type: Reward['type']
  parameters: Reward['parameters']
  voucher?: Voucher | null
}

/**
 * Undoes what a reward redemption gave, for its rollback (the points come back through the
 * card's ledger, `giveBack`). The reward's `redeemed` drops by one and a MATERIAL reward is
 * restocked. What a CAMPAIGN reward issued is taken back where it is still there:
 * - a coupon stays published to the customer (the publication is history) but is disabled;
 * - gift credits are removed from the card's balance, at most what is left (credits already spent
 *   are not clawed back);
 * - points on a card of another program are subtracted, at most its spendable points, soonest
 *   expiring first.
 * Returns the reward as the rollback object names it, or null for a redemption without a reward.
 */
export async function undoReward(
  tx: Tx,
  redemption: Redemption,
): Promise<{ id: string; name: string; type: Reward['type'] } | null> {
  const given = redemption.reward as RedeemedReward | undefined
  if (!given) return null
  const stored = await tx.store.rewards.get(given.id)
  if (stored) {
    const r = stored.value
    tx.update('rewards', stored, {
      ...r,
      stock: r.type === 'MATERIAL' && r.stock !== null ? r.stock + 1 : r.stock,
      redeemed: Math.max(0, (r.redeemed ?? 0) - 1),
      updated_at: tx.nowIso,
    })
  }
  const issued = given.voucher ? await tx.store.vouchers.get(given.voucher.id) : undefined
  if (given.type === 'CAMPAIGN' && issued) {
    const amount = given.parameters.campaign?.balance ?? 0
    const v = issued.value
    if (v.type === 'DISCOUNT_VOUCHER') tx.update('vouchers', issued, { ...v, active: false, updated_at: tx.nowIso })
    else await takeBackCredit(tx, issued, amount)
  }
  return { id: given.id, name: given.name, type: given.type }
}
