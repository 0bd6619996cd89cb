import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import type { Customer } from '../../model/customer'
import type { IdempotencyRecord } from '../../model/idempotency'
import type { Reward } from '../../model/loyalty'
import type { CalculatedOrder } from '../../model/order'
import type { Redemption, ValidationSession } from '../../model/redemption'
import type { ValidationRule } from '../../model/validation-rule'
import type { Voucher } from '../../model/voucher'
import { evaluateValidationRule, redeemableLabel } from '../../rules/conditions'
import { calculateOrder } from '../../rules/discounts/normalize-order'
import { payWithPoints, rewardCost, tierRewardMapping } from '../../rules/reward-costs'
import { redeemRewardInput } from '../../schema/loyalty'
import { parse } from '../../schema/parse'
import type { Stored } from '../../storage/ports'
import { assignedRules } from '../campaigns/rule-assignments'
import { startEarly } from '../kernel/early-reads'
import { withIdempotency } from '../kernel/idempotency-keys'
import { enforceMetadata } from '../kernel/metadata-enforcement'
import { type Context, must, type Tx } from '../kernel/unit-of-work'
import { lockCounts, readExpiredLocks, releasedBy, releaseLockRows } from '../vouchers/lock-counts'
import { withoutBookkeeping } from '../vouchers/public-redemption'
import { voucherExtras, withExtras } from '../vouchers/redeemed-voucher'
import { loadPrograms } from './cascade'
import { afterPointsChanged, giveReward, takeBackCredit } from './earn-points'
import { memberStanding, memberTier } from './member-tiers'
import { memberCard } from './members'
import { loadCard, spendablePoints } from './points-ledger'
import { type CardLocks, pointsExceeded, recordRewardRedemption, refuseWhenShort } from './reward-records'

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
  // What does not depend on the card is read beside it (docs/storage.md#load-decide-commit).
  const early = {
    reward: startEarly(ctx.store.rewards.get(input.reward.id)),
    schema: startEarly(ctx.store.metadata_schemas.findBy('related_object', 'redemption')),
    campaign: campaignId === null ? null : startEarly(ctx.store.campaigns.get(campaignId)),
    assignments:
      campaignId === null
        ? null
        : startEarly(
            ctx.store.reward_assignments.list({
              where: { related_object_id: campaignId, reward_id: input.reward.id },
              count: false,
            }),
          ),
  }
  const card0 = await memberCard(ctx, campaignId, memberId)
  const call = {
    operation: 'loyalties.redeemReward',
    input: { campaignId, memberId: card0.value.id, ...input },
    reference: (r: Redemption) => ({ ids: [r.id], status: r.status }),
    replay: async (record: IdempotencyRecord) =>
      withoutBookkeeping((await must(ctx, 'redemptions', record.result_ids[0] ?? '', 'redemption')).value),
  }
  let first: Stored<Voucher> | undefined = card0
  return withIdempotency(ctx, options, call, async (tx) => {
    // Level 1: the card, its program, the reward and its assignment, the schema; then the holder,
    // the ledger, the standing and every validation rule assigned to the reward, the card or the
    // program; then the rules themselves (docs/storage.md#load-decide-commit).
    const programId = card0.value.campaign_id ?? ''
    // The first attempt uses what was read to name the card; a retry reads it all again.
    const reuse = first !== undefined
    const read = first
    first = undefined
    const [stored, campaign, reward, assignments, schema] = await Promise.all([
      read ?? tx.store.vouchers.get(card0.value.id),
      (reuse && campaignId === programId ? early.campaign : null) ?? tx.store.campaigns.get(programId),
      reuse ? early.reward : tx.store.rewards.get(input.reward.id),
      (reuse && campaignId === programId ? early.assignments : null) ??
        tx.store.reward_assignments.list({
          where: { related_object_id: programId, reward_id: input.reward.id },
          count: false,
        }),
      reuse ? early.schema : tx.store.metadata_schemas.findBy('related_object', 'redemption'),
    ])
    if (!stored) throw EngineError.notFound('voucher', memberId, 'memberId')
    if (!campaign) throw EngineError.notFound('campaign', programId)
    if (campaign.value.campaign_type === 'LOYALTY_PROGRAM') void startEarly(loadPrograms(tx, [campaign.value]))
    if (!reward) throw EngineError.notFound('reward', input.reward.id)
    const assignment = assignments.data[0]
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
    // Points other sessions lock on the card stay theirs (docs/storage.md#session-locks); its expired
    // locks, read only when some are counted, are left out and released by this commit.
    const lockedBefore = lockCounts(stored.value).points
    const [holder, card, , assigned, expired] = await Promise.all([
      holderId ? tx.store.customers.get(holderId) : undefined,
      // The spending order is read only for a card with points expiring: a spend of the others is
      // allocated by the store at commit (docs/storage.md#taking-points).
      loadCard(tx, stored, { spending: stored.value.loyalty_card?.next_expiration_date != null }),
      memberStanding(tx, stored.value.id),
      assignedRules(tx.store, [assignment.value.id, stored.value.id, programId]),
      lockedBefore > 0 ? readExpiredLocks(tx.store, stored.value.id, tx.now, undefined) : [],
    ])
    const locks = cardLocks(tx, stored.value, expired)
    if (!holder) {
      throw new EngineError({
        code: 400,
        key: 'loyalty_card_not_assigned',
        message: 'Loyalty card not assigned',
        details: `Loyalty card ${stored.value.code} has no holder; assign it with createMember first`,
      })
    }
    const rulesOf = (relatedId: string) => {
      const ids = new Set(assigned.assignments.filter((a) => a.related_object_id === relatedId).map((a) => a.rule_id))
      return {
        assignments: assigned.assignments.filter((a) => a.related_object_id === relatedId),
        rules: assigned.rules.filter((r) => ids.has(r.id)),
      }
    }
    const cardRules = [rulesOf(stored.value.id), rulesOf(programId)]
    const cardExtras = voucherExtras(
      cardRules.flatMap((r) => r.assignments),
      cardRules.flatMap((r) => r.rules),
      holder.value,
    )
    const metadata = await enforceMetadata(tx, 'redemption', input.metadata, 'metadata', schema ?? null)
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
        balance: Math.max(0, spendablePoints(tx, card) - locks.points),
        requestedPoints: input.reward.points ?? null,
        // The service interface: "When the card balance is lower than the points, only the available points are applied."
        capAtBalance: true,
      })
      if (!paid.ok) {
        if (paid.reason === 'loyalty_card_points_exceeded')
          throw pointsExceeded(paid.requested, paid.balance, locks.points)
        throw EngineError.invalid('reward.points', 'must be a positive integer')
      }
      points = paid.points
      order = withDiscount(order, paid.discount)
    } else {
      const cost = rewardCost(reward.value, assignment.value, mapping)
      if (!cost.ok) throw EngineError.invalid('reward.id', `the reward's points cost is not usable (${cost.reason})`)
      points = cost.points
    }
    checkRewardAssignmentRules(tx, rulesOf(assignment.value.id).rules, {
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
      extras: cardExtras,
      locks,
      give: (given, own, customer) => giveReward(tx, given, own, customer),
    })
    // A member refused for want of stock or points is answered in the same commit (an auto-redeemed
    // reward, refused, just does not happen: the cascade decides again).
    refuseWhenShort(tx, reward.value, {
      card,
      points,
      balance: stored.value.loyalty_card?.balance ?? 0,
      locked: locks.points,
    })
    await afterPointsChanged(tx, campaign.value, card, holder.value)
    return withoutBookkeeping({ ...redemption, voucher: withExtras(card.voucher, extras) })
  })
}

/** What other sessions lock on the card, less its expired locks, which this commit releases. */
function cardLocks(tx: Tx, card: Voucher, expired: Stored<ValidationSession>[]): CardLocks {
  const released = releaseLockRows(tx, expired)
  return { points: lockCounts(card).points - released.points, released: releasedBy(released) }
}

/**
 * Refuses a reward redemption whose assignment's validation rules say no, with the first failing
 * rule's error (`redemption_rules_violated` for `redemption.reward.pay_with_points.points_used`,
 * `order_rules_violated`, `customer_rules_violated`…), its details naming the rule's id.
 */
export function checkRewardAssignmentRules(
  tx: Tx,
  rules: readonly ValidationRule[],
  input: {
    order: CalculatedOrder | null
    customer: Customer
    tierId: string | null
    pointsUsed: number
    metadata: Record<string, unknown>
  },
): void {
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
 */
export async function undoReward(tx: Tx, redemption: Redemption): Promise<void> {
  const given = redemption.reward as RedeemedReward | undefined
  if (!given) return
  const stored = await tx.store.rewards.get(given.id)
  if (stored) {
    const r = stored.value
    // Increments, like the redemption's: a rollback never races a concurrent redemption of the reward.
    const restock = r.type === 'MATERIAL' && r.stock !== null
    tx.increment('rewards', r.id, restock ? { stock: 1, redeemed: -1 } : { redeemed: -1 }, {
      set: { updated_at: tx.nowIso },
    })
  }
  const issued = given.voucher ? await tx.store.vouchers.get(given.voucher.id) : undefined
  if (given.type === 'CAMPAIGN' && issued) {
    const amount = given.parameters.campaign?.balance ?? 0
    const v = issued.value
    if (v.type === 'DISCOUNT_VOUCHER') tx.update('vouchers', issued, { ...v, active: false, updated_at: tx.nowIso })
    else await takeBackCredit(tx, issued, amount)
  }
}
