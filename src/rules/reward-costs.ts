import type { Decimal } from 'decimal.js'
import type { MappingPoints, RewardType } from '../model/loyalty'
import { decimal } from '../money'

/**
 * Reward costs and pay with points (docs/concepts.md#rewards, docs/concepts.md#pay-with-points,
 * docs/behaviour.md#pay-with-points).
 */

export type RewardCost =
  | { ok: true; points: number }
  | { ok: false; reason: 'custom_mapping_not_allowed_for_pay_with_points' | 'invalid_points_cost' }

/**
 * The points a member pays for a reward: the assignment's `parameters.loyalty.points`, adjusted by
 * the member's tier mapping for that reward. `MULTIPLY` scales the cost and rounds up to a whole
 * point (a member never pays less than the exact cost); `CUSTOM` replaces it. A COIN reward (pay
 * with points) has no fixed cost: its points come from `payWithPoints`, so this returns
 * `{ ok: true, points: 0 }` for it, and rejects a CUSTOM mapping (not allowed for pay with points).
 */
export function rewardCost(
  reward: { type: RewardType },
  assignment: { parameters?: { loyalty?: { points?: number } } | null },
  mapping?: MappingPoints | null,
): RewardCost {
  if (reward.type === 'COIN') {
    if (mapping?.type === 'CUSTOM') return { ok: false, reason: 'custom_mapping_not_allowed_for_pay_with_points' }
    return { ok: true, points: 0 }
  }
  const base = assignment.parameters?.loyalty?.points
  if (base === undefined || !Number.isSafeInteger(base) || base < 1) return { ok: false, reason: 'invalid_points_cost' }
  if (mapping === null || mapping === undefined) return { ok: true, points: base }
  switch (mapping.type) {
    case 'MULTIPLY': {
      if (!Number.isFinite(mapping.multiplier) || mapping.multiplier <= 0)
        return { ok: false, reason: 'invalid_points_cost' }
      return { ok: true, points: decimal(base).times(mapping.multiplier).ceil().toNumber() }
    }
    case 'CUSTOM':
      if (!Number.isSafeInteger(mapping.points) || mapping.points < 0)
        return { ok: false, reason: 'invalid_points_cost' }
      return { ok: true, points: mapping.points }
    default: {
      const _never: never = mapping
      return _never
    }
  }
}

/** The tier's mapping for a reward, if the member's tier has one. */
export function tierRewardMapping(
  tier: { rewards?: Readonly<Record<string, MappingPoints>> } | null | undefined,
  rewardId: string,
): MappingPoints | null {
  return tier?.rewards?.[rewardId] ?? null
}

export interface CoinParameters {
  /** Cash value of `points_ratio` points, in major currency units (20 means $20). */
  exchange_ratio: number
  /** Points that buy `exchange_ratio`. */
  points_ratio: number
}

/** The value of one point in minor units: `exchange_ratio × 100 / points_ratio` (exact). */
export function pointValue(coin: CoinParameters): Decimal {
  assertCoin(coin)
  return decimal(coin.exchange_ratio).times(100).dividedBy(coin.points_ratio)
}

/** What `points` are worth in minor units, rounded down: a fraction of a cent is never paid out. */
export function pointsValue(coin: CoinParameters, points: number): number {
  return pointValue(coin).times(points).floor().toNumber()
}

export interface PayWithPointsInput {
  /** What is left to pay on the order, minor units. */
  remainingTotal: number
  /** The card's spendable points. */
  balance: number
  /** `reward.points` of the request, when given. */
  requestedPoints?: number | null
  /**
   * Requested points above the balance are capped at the balance instead of refused: the service interface of
   * `loyalties.redeemReward` says "only the available points are applied". The stacked loyalty_card
   * redeemable keeps the refusal (`loyalty_card_points_exceeded`, docs/behaviour.md#pay-with-points).
   */
  capAtBalance?: boolean
}

export type PayWithPoints =
  | { ok: true; points: number; discount: number }
  | { ok: false; reason: 'loyalty_card_points_exceeded'; requested: number; balance: number }
  | { ok: false; reason: 'invalid_points'; requested: number }

/**
 * How many points pay how much of an order.
 *
 * - With `requestedPoints`: exactly those points are used and the discount is
 *   `min(their value, remaining total)`; more points than the balance are rejected with
 *   `loyalty_card_points_exceeded` (the caller's error key), or with `capAtBalance` only the balance
 *   is used.
 * - Without: the fewest whole `points_ratio` blocks whose value covers the remaining total (ceil),
 *   capped by the balance (then only the available points are used); the discount is
 *   `min(value of the points, remaining total)`. 45000 at {20, 100} → 23 blocks = 2300 points.
 */
export function payWithPoints(coin: CoinParameters, input: PayWithPointsInput): PayWithPoints {
  const remaining = Math.max(0, input.remainingTotal)
  const balance = Math.max(0, input.balance)
  const requested = input.requestedPoints
  if (requested !== null && requested !== undefined) {
    if (!Number.isSafeInteger(requested) || requested < 1) return { ok: false, reason: 'invalid_points', requested }
    if (requested > balance && !input.capAtBalance) {
      return { ok: false, reason: 'loyalty_card_points_exceeded', requested, balance }
    }
    const points = Math.min(requested, balance)
    return { ok: true, points, discount: Math.min(pointsValue(coin, points), remaining) }
  }
  assertCoin(coin)
  const blockValue = decimal(coin.exchange_ratio).times(100)
  const blocks = decimal(remaining).dividedBy(blockValue).ceil()
  const points = Math.min(blocks.times(coin.points_ratio).toNumber(), balance)
  return { ok: true, points, discount: Math.min(pointsValue(coin, points), remaining) }
}

function assertCoin(coin: CoinParameters): void {
  if (!Number.isFinite(coin.exchange_ratio) || coin.exchange_ratio <= 0) {
    throw new RangeError(`coin reward: exchange_ratio must be a positive number, got ${coin.exchange_ratio}`)
  }
  if (!Number.isSafeInteger(coin.points_ratio) || coin.points_ratio <= 0) {
    throw new RangeError(`coin reward: points_ratio must be a positive integer, got ${coin.points_ratio}`)
  }
}

/**
 * Auto-redeem caps (docs/concepts.md#rewards): one auto-redemption is the automatic spend that follows points
 * being added, and redeems at most 25 rewards; a customer gets at most 10 of them per calendar day
 * (so at most 250 a day, docs/behaviour.md#auto-redeem).
 */
export const AUTO_REDEEM_REWARDS_PER_TRANSACTION = 25
export const AUTO_REDEEMS_PER_DAY = 10

export interface AutoRedeemInput {
  /** Spendable points on the card now. */
  balance: number
  /** The reward's points cost for this member (tier mapping applied). */
  cost: number
  /** Rewards already auto-redeemed for this customer in this transaction. */
  redeemedInTransaction: number
  /** Whether this transaction already counts as one of the day's auto-redemptions. */
  runOpen: boolean
  /** Auto-redemptions of this customer earlier today (transactions, not rewards). */
  runsToday: number
  /** A MATERIAL reward's stock left; null when unlimited. */
  stock: number | null
}

/**
 * How many more times the auto-redeem reward is redeemed now: as many as the balance pays for,
 * within the transaction's 25 and the stock; none once the day's 10 auto-redemptions are used (a
 * transaction already auto-redeeming carries on within its 25). A cost below one point never
 * auto-redeems: nothing would bound it but the caps.
 */
export function autoRedemptions(input: AutoRedeemInput): number {
  if (!Number.isSafeInteger(input.cost) || input.cost < 1) return 0
  if (!input.runOpen && input.runsToday >= AUTO_REDEEMS_PER_DAY) return 0
  const affordable = Math.floor(Math.max(0, input.balance) / input.cost)
  const room = AUTO_REDEEM_REWARDS_PER_TRANSACTION - input.redeemedInTransaction
  const stock = input.stock === null ? affordable : Math.max(0, input.stock)
  return Math.max(0, Math.min(affordable, room, stock))
}
