import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Campaign } from '../../model/campaign'
import type { Customer } from '../../model/customer'
import type { Reward } from '../../model/loyalty'
import type { CalculatedOrder } from '../../model/order'
import type { Redemption } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import type { Stored } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'
import { simpleCustomer } from '../shop/customer-records'
import { countRedemptionInSummary } from '../shop/summary-counters'
import { hashTrackingId } from '../shop/tracking-id'
import { type RedemptionVoucherExtras, redemptionVoucherExtras, withExtras } from '../vouchers/redeemed-voucher'
import { type CardState, countCardUse, spendCard } from './points-ledger'

/** A reward redemption's writes: the points spent, the reward counted and given, the record and its events. */

export interface RewardRedemptionInput {
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
  /** What the reward gives (a coupon, credits, points): the caller's, which may run the loyalty cascade. */
  give: (reward: Reward, ownCampaign: Campaign, customer: Customer) => Promise<Voucher | null>
  /** The card's validation-rule extras when the caller read them already. */
  extras?: RedemptionVoucherExtras
}

/**
 * Spends the points, counts the reward, gives it, and records the redemption with its events; the
 * caller recalculates the tier afterwards. The reward is read as this transaction last wrote it, so
 * several redemptions of one reward in one transaction (auto-redeem) count each.
 */
export async function recordRewardRedemption(
  tx: Tx,
  input: RewardRedemptionInput,
): Promise<{ redemption: Redemption; extras: RedemptionVoucherExtras }> {
  const { card, campaign, holder, points, order, metadata } = input
  const current = latestReward(tx, input.reward)
  const stocked = current.type === 'MATERIAL' && current.stock !== null
  if (stocked && (current.stock as number) <= 0) throw outOfStock(current.id)
  let taken: { bucketId: string; points: number }[] = []
  if (points > 0) {
    // Guarded decrements of the card's buckets and balance (with its use): concurrent spends all land
    // while the points last (docs/storage.md#counters).
    const spent = await spendCard(tx, card, points, { use: true })
    if (!spent.ok) throw pointsExceeded(spent.requested, spent.available)
    taken = spent.taken
  } else countCardUse(tx, card, 1)
  const next: Reward = {
    ...current,
    stock: stocked ? (current.stock as number) - 1 : current.stock,
    redeemed: (current.redeemed ?? 0) + 1,
    updated_at: tx.nowIso,
  }
  // The reward's stock and count are a guarded increment of its row, never a rewrite of what was read:
  // concurrent members all land while the stock lasts (docs/storage.md#shared-rows).
  tx.increment('rewards', current.id, stocked ? { stock: -1, redeemed: 1 } : { redeemed: 1 }, {
    ...(stocked ? { guard: { stock: { min: 0 } } } : {}),
    set: { updated_at: tx.nowIso },
  })
  const issued = await input.give(current, campaign, holder)
  const customer = simpleCustomer(holder)
  const extras = input.extras ?? (await redemptionVoucherExtras(tx.store, card.voucher, holder))
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
  countRedemptionInSummary(tx, redemption)
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

/** The reward as read, with what this transaction's increments add to it (auto-redeem may redeem it twice). */
export function latestReward(tx: Tx, stored: Stored<Reward>): Reward {
  let reward = stored.value
  for (const w of tx.writes) {
    if (w.op !== 'increment' || w.collection !== 'rewards' || w.id !== reward.id) continue
    reward = {
      ...reward,
      stock: reward.stock === null ? null : reward.stock + (w.by.stock ?? 0),
      redeemed: (reward.redeemed ?? 0) + (w.by.redeemed ?? 0),
    }
  }
  return reward
}

function outOfStock(rewardId: string): EngineError {
  return new EngineError({
    code: 400,
    key: 'reward_out_of_stock',
    message: 'Reward out of stock',
    details: `Reward ${rewardId} has no stock left`,
    path: 'reward.id',
  })
}

/**
 * The refusal of a reward whose stock ran out between the read and the commit, answered in the same
 * commit (docs/storage.md#alternatives): when the stock guard fails, the store commits nothing of the
 * request and the operation answers \`reward_out_of_stock\`, whatever else failed with it. Prepared
 * only where the guard may fail (\`Tx.mayFail\`).
 */
export function refuseWhenOutOfStock(tx: Tx, reward: Reward): void {
  if (tx.alternatives || reward.type !== 'MATERIAL' || reward.stock === null) return
  const at = { collection: 'rewards' as const, id: reward.id, path: 'stock' }
  tx.alternatives = () => {
    if (!tx.mayFail(at, { min: 0 }, reward.stock ?? undefined)) return []
    const others = tx.guards().filter((g) => !(g.collection === at.collection && g.id === at.id && g.path === at.path))
    return [
      {
        when: { ...at, max: -1 },
        tolerate: others.map(({ collection, id, path }) => ({ collection, id, path })),
        writes: [],
        result: () => {
          throw outOfStock(reward.id)
        },
      },
    ]
  }
}

export function pointsExceeded(requested: number, balance: number): EngineError {
  return new EngineError({
    code: 400,
    key: 'loyalty_card_points_exceeded',
    message: 'Loyalty card points exceeded',
    details: `The reward needs ${requested} points; the card has ${balance} spendable`,
    path: 'reward',
  })
}

/**
 * The reward a rolled-back redemption gave, as the rollback object names it (`undoReward` takes it
 * back), or null for a redemption without a reward.
 */
export function undoneReward(redemption: Redemption): { id: string; name: string; type: Reward['type'] } | null {
  const given = redemption.reward as { id: string; name: string; type: Reward['type'] } | undefined
  return given ? { id: given.id, name: given.name, type: given.type } : null
}
