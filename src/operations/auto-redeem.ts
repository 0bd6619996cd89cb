import { EngineError } from '../errors'
import type { Campaign } from '../model/campaign'
import { autoRedemptions, rewardCost, tierRewardMapping } from '../rules/rewards'
import { endOfDayExclusive, localDate, startOfDay } from '../rules/zoned-calendar'
import type { Tx } from './context'
import { customerInTx } from './loyalty-earning'
import { type CardState, spendablePoints } from './loyalty-ledger'
import { memberTier } from './loyalty-tiers'
import { checkRewardAssignmentRules, latestReward, recordRewardRedemption } from './reward-redemption'

/**
 * Auto-redeem (docs/concepts.md#tiers, docs/concepts.md#rewards): after points are added to a card, the
 * program's auto-redeem reward (at most one per program) is redeemed as many times as the spendable balance
 * pays for, at most 25 rewards in the transaction and only while the customer has had fewer than 10
 * auto-redemptions (transactions) today in the engine's time zone. It runs before the tier recalculation, so
 * the points it spends never count towards a BALANCE tier. Each is a reward redemption with
 * `channel.channel_type: 'AUTO_REDEEM'`; `channel.channel_id` names the transaction's auto-redemption, which
 * is what the daily cap counts. A reward that cannot be redeemed now (pay with points, which needs an order;
 * out of stock; its assignment's validation rules say no) is skipped without failing the operation that added
 * the points.
 */
export async function autoRedeem(tx: Tx, campaign: Campaign, card: CardState): Promise<number> {
  const holderId = card.voucher.holder_id
  if (!holderId) return 0
  const assignment = (
    await tx.store.reward_assignments.list({
      where: { related_object_id: campaign.id, 'parameters.loyalty.auto_redeem': true },
      limit: 1,
    })
  ).data[0]?.value
  if (!assignment) return 0
  const reward = await tx.store.rewards.get(assignment.reward_id)
  if (!reward || reward.value.type === 'COIN') return 0
  const holder = await customerInTx(tx, holderId)
  if (!holder) return 0
  const tier = await memberTier(tx, card)
  const cost = rewardCost(reward.value, assignment, tierRewardMapping(tier, reward.value.id))
  if (!cost.ok) return 0
  const run = await autoRedeemRun(tx, holderId)
  const current = latestReward(tx, reward)
  const times = autoRedemptions({
    balance: spendablePoints(tx, card),
    cost: cost.points,
    redeemedInTransaction: run.redeemed,
    runOpen: run.redeemed > 0,
    runsToday: run.earlierToday,
    stock: current.type === 'MATERIAL' ? current.stock : null,
  })
  if (times === 0) return 0
  try {
    await checkRewardAssignmentRules(tx, assignment.id, {
      order: null,
      customer: holder,
      tierId: tier?.id ?? null,
      pointsUsed: cost.points,
      metadata: {},
    })
  } catch (error) {
    if (error instanceof EngineError) return 0
    throw error
  }
  for (let i = 0; i < times; i++) {
    await recordRewardRedemption(tx, {
      card,
      campaign,
      reward,
      assignmentId: assignment.id,
      holder,
      tierId: tier?.id ?? null,
      points: cost.points,
      order: null,
      metadata: {},
      channel: { channel_id: run.id, channel_type: 'AUTO_REDEEM' },
    })
    run.redeemed++
  }
  return times
}

interface AutoRedeemRun {
  /** Names this transaction's auto-redemption (`channel.channel_id` of its redemptions). */
  id: string
  /** Rewards auto-redeemed for the customer in this transaction. */
  redeemed: number
  /** The customer's auto-redemptions earlier today (distinct transactions). */
  earlierToday: number
}

const runs = new WeakMap<Tx, Map<string, AutoRedeemRun>>()

/** The customer's auto-redemption in this transaction, with the day's earlier ones counted once. */
async function autoRedeemRun(tx: Tx, customerId: string): Promise<AutoRedeemRun> {
  let byCustomer = runs.get(tx)
  if (!byCustomer) {
    byCustomer = new Map()
    runs.set(tx, byCustomer)
  }
  const known = byCustomer.get(customerId)
  if (known) return known
  const timeZone = tx.ctx.config.timezone
  const today = localDate(tx.now, timeZone)
  const start = startOfDay(today, timeZone)
  const page = await tx.store.redemptions.list({
    where: {
      customer_id: customerId,
      'channel.channel_type': 'AUTO_REDEEM',
      date: {
        after: new Date(start.getTime() - 1).toISOString(),
        before: endOfDayExclusive(today, timeZone).toISOString(),
      },
    },
  })
  const earlier = new Set(page.data.map((r) => r.value.channel.channel_id ?? r.value.id))
  const run: AutoRedeemRun = { id: tx.id(AUTO_REDEEM_RUN_PREFIX), redeemed: 0, earlierToday: earlier.size }
  byCustomer.set(customerId, run)
  return run
}

/** Prefix of an auto-redemption's id (`channel.channel_id` of the rewards it redeemed). */
export const AUTO_REDEEM_RUN_PREFIX = 'autor_'
