import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Campaign } from '../../model/campaign'
import type { Customer } from '../../model/customer'
import type { Reward } from '../../model/loyalty'
import type { CalculatedOrder } from '../../model/order'
import type { Redemption } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import type { GuardRef, Stored } from '../../storage/ports'
import type { PreparedAlternative, Tx } from '../kernel/unit-of-work'
import { simpleCustomer } from '../shop/customer-records'
import { countRedemptionInSummary } from '../shop/summary-counters'
import { hashTrackingId } from '../shop/tracking-id'
import { type RedemptionVoucherExtras, redemptionVoucherExtras, withExtras } from '../vouchers/redeemed-voucher'
import { type CardSpend, spendCard } from './card-spend'
import { type CardState, countCardUse, spendablePoints } from './points-ledger'

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
  /**
   * Points other sessions' live locks hold on the card, left out of what the member may spend, and
   * the expired locks this commit releases (docs/storage.md#session-locks): the spend's guard keeps
   * the balance at or above what stays locked. Auto-redeem, which names no card lock, leaves it out.
   */
  locks?: CardLocks
}

/** What sessions lock on the card as a reward redemption sees it. */
export interface CardLocks {
  /** Points other live sessions hold after the commit's releases. */
  points: number
  /** The `session_locks` fields the commit's releases move (expired locks taken out). */
  released: Record<string, number>
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
  let spent: CardSpend | undefined
  if (points > 0) {
    // A guarded decrement of the card's balance (with its use) and the points taken from its buckets
    // at commit: concurrent spends all land while the points last (docs/storage.md#taking-points).
    const locked = input.locks?.points ?? 0
    const spendable = spendablePoints(tx, card) - locked
    if (points > spendable) throw pointsExceeded(points, Math.max(0, spendable), locked)
    spent = await spendCard(tx, card, points, {
      use: true,
      ...(input.locks ? { locks: { released: input.locks.released } } : {}),
    })
    if (!spent.ok) throw pointsExceeded(spent.requested, spent.available)
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
    points_taken: spent?.ok ? spent.taken : [],
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
  if (spent?.ok) spent.recordIn('redemptions', redemption.id)
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
 * The refusals of a reward redemption answered in the same commit (docs/storage.md#alternatives):
 * when the reward's stock guard fails, `reward_out_of_stock`, whatever else failed with it; when the
 * card's balance guard fails below zero (the points a concurrent spend took), and with it perhaps the
 * take of the points (docs/storage.md#taking-points), `loyalty_card_points_exceeded`. Either way the
 * store commits nothing of the request. Prepared only where the guard may fail (`Tx.mayFail`). Pay
 * with points is not refused on the balance: it spends what the card holds, so it decides again.
 */
export function refuseWhenShort(
  tx: Tx,
  reward: Reward,
  spend: { card: CardState; points: number; balance: number; locked?: number } | null,
): void {
  if (tx.alternatives) return
  const stock = reward.type === 'MATERIAL' && reward.stock !== null
  const spends = spend !== null && spend.points > 0 && reward.type !== 'COIN'
  if (!stock && !spends) return
  const ref = (collection: GuardRef['collection'], id: string, path: string): GuardRef => ({ collection, id, path })
  const same = (a: GuardRef, b: GuardRef) => a.collection === b.collection && a.id === b.id && a.path === b.path
  // A take short of points fails with the balance: tolerated by either answer.
  const take = spend ? [ref('points_buckets', spend.card.voucher.id, 'remaining')] : []
  const others = (at: GuardRef) => [
    ...tx
      .guards()
      .filter((g) => !same(g, at))
      .map(({ collection, id, path }) => ref(collection, id, path)),
    ...take,
  ]
  tx.alternatives = () => {
    const out: PreparedAlternative[] = []
    const atStock = ref('rewards', reward.id, 'stock')
    if (stock && tx.mayFail(atStock, { min: 0 }, reward.stock ?? undefined)) {
      out.push({
        when: { ...atStock, max: -1 },
        tolerate: others(atStock),
        writes: [],
        result: () => {
          throw outOfStock(reward.id)
        },
      })
    }
    if (spend && spends) {
      const atBalance = ref('vouchers', spend.card.voucher.id, 'loyalty_card.balance')
      if (tx.mayFail(atBalance, { min: 0 }, spend.balance)) {
        out.push({
          when: { ...atBalance, max: -1 },
          tolerate: others(atBalance),
          writes: [],
          result: (failed) => {
            const found = failed.find((c) => c.collection === 'vouchers' && c.guard?.path === atBalance.path)
            throw pointsExceeded(spend.points, Math.max(0, (found?.guard?.value ?? -spend.points) + spend.points))
          },
        })
      }
      // The balance less what other sessions lock (`minus_points` plus the balance) below zero: the
      // points a lock holds, answered as the payment with points answers it.
      const locked = spend.locked
      const atLocks = ref('vouchers', spend.card.voucher.id, 'session_locks.minus_points')
      if (locked !== undefined && tx.mayFail(atLocks, { min: 0 }, spend.balance - locked)) {
        out.push({
          when: { ...atLocks, max: -1 },
          tolerate: others(atLocks),
          writes: [],
          result: (failed) => {
            const found = failed.find((c) => c.collection === 'vouchers' && c.guard?.path === atLocks.path)
            const available = (found?.guard?.value ?? -spend.points) + spend.points
            throw pointsExceeded(spend.points, Math.max(0, available), -available + spend.balance)
          },
        })
      }
    }
    return out
  }
}

/**
 * The refusal of a reward redemption short of points; with points locked by other sessions it says
 * so as the payment with points does ("150 points needed, 100 available (400 locked by sessions)").
 */
export function pointsExceeded(requested: number, balance: number, locked = 0): EngineError {
  return new EngineError({
    code: 400,
    key: 'loyalty_card_points_exceeded',
    message: 'Loyalty card points exceeded',
    details:
      locked > 0
        ? `${requested} points needed, ${balance} available (${locked} locked by sessions)`
        : `The reward needs ${requested} points; the card has ${balance} spendable`,
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
