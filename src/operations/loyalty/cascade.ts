import type { Campaign } from '../../model/campaign'
import type { Customer } from '../../model/customer'
import type { EarningRule, LoyaltyTier, PointsBucket, Reward, RewardAssignment, TierPeriod } from '../../model/loyalty'
import type { ValidationRule } from '../../model/validation-rule'
import {
  type AutoRedeemRun,
  type CascadeCard,
  type CascadeCustomer,
  type CascadeProgram,
  type CascadeResult,
  type CascadeTrigger,
  runCascade,
} from '../../rules/loyalty-cascade'
import { endOfDayExclusive, localDate, periodBounds, startOfDay } from '../../rules/zoned-calendar'
import type { Stored } from '../../storage/ports'
import { startEarly } from '../kernel/early-reads'
import type { Tx } from '../kernel/unit-of-work'
import { findMemberCard } from '../vouchers/held-codes'
import { knownCampaignTiers, memberStanding, primeCampaignTiers } from './member-tiers'
import { readAheadForAutoJoin } from './members'
import { type CardState, loadCard } from './points-ledger'

/**
 * The loyalty cascade's load and decide phases (docs/storage.md#load-decide-commit): everything the
 * pure cascade (`src/rules/loyalty-cascade`) reads about a program and a member, read in batched
 * levels and kept for the transaction, then the cascade run on it. Writing its steps is
 * `earning.ts`'s.
 *
 * Levels: the loyalty programs (one list), then their earning rules, tiers and auto-redeem
 * assignments (three lists over every program at once) beside the customer's cards, then the
 * validation rules and rewards those name beside the cards' ledgers and standings. An operation that
 * knows it will earn starts these reads early (`prefetchMember`), so they overlap its own.
 */

/** A program loaded for the cascade, with the stored rows the writes need. */
export interface LoadedProgram extends CascadeProgram {
  campaign: Campaign
  autoRedeem: (CascadeProgram['autoRedeem'] & { stored: Stored<Reward> }) | null
}

interface LoyaltyCache {
  programs?: Promise<Stored<Campaign>[]>
  loaded: Map<string, Promise<LoadedProgram>>
}

/** The customer's auto-redemption in this transaction (`channel.channel_id` of its redemptions). */
export interface OpenRun extends AutoRedeemRun {
  id: string
}

/** Plain reads, shared by an attempt and its forks (`Tx.reads`). */
const caches = new WeakMap<object, LoyaltyCache>()

function cacheOf(tx: Tx): LoyaltyCache {
  let cache = caches.get(tx.reads)
  if (!cache) {
    cache = { loaded: new Map() }
    caches.set(tx.reads, cache)
  }
  return cache
}

/** The customers' auto-redemptions of each attempt: what it writes, so never shared with a fork. */
const openRuns = new WeakMap<Tx, Map<string, Promise<OpenRun>>>()

function runsOf(tx: Tx): Map<string, Promise<OpenRun>> {
  let runs = openRuns.get(tx)
  if (!runs) {
    runs = new Map()
    openRuns.set(tx, runs)
  }
  return runs
}

/** Every loyalty program, read once per transaction. */
export function loyaltyPrograms(tx: Tx): Promise<Stored<Campaign>[]> {
  const cache = cacheOf(tx)
  cache.programs ??= startEarly(
    tx.store.campaigns.list({ where: { campaign_type: 'LOYALTY_PROGRAM' }, count: false }).then((p) => p.data),
  )
  return cache.programs
}

/** The programs' earning rules, tiers and auto-redeem rewards, in three batched levels. */
export function loadPrograms(tx: Tx, campaigns: readonly Campaign[]): Promise<LoadedProgram[]> {
  const cache = cacheOf(tx)
  const missing = campaigns.filter((c) => !cache.loaded.has(c.id))
  if (missing.length > 0) {
    const batch = loadProgramBatch(tx, missing)
    for (const c of missing) cache.loaded.set(c.id, startEarly(batch.then((all) => all.get(c.id) as LoadedProgram)))
  }
  return Promise.all(campaigns.map((c) => cache.loaded.get(c.id) as Promise<LoadedProgram>))
}

async function loadProgramBatch(tx: Tx, campaigns: readonly Campaign[]): Promise<Map<string, LoadedProgram>> {
  const ids = campaigns.map((c) => c.id)
  const [rules, tiers, autos] = await Promise.all([
    tx.store.earning_rules.list({
      where: { campaign_id: { in: ids } },
      order: { field: 'created_at', direction: 'asc' },
      count: false,
    }),
    tx.store.loyalty_tiers.list({ where: { campaign_id: { in: ids } }, count: false }),
    tx.store.reward_assignments.list({
      where: { related_object_id: { in: ids }, 'parameters.loyalty.auto_redeem': true },
      order: { field: 'created_at', direction: 'asc' },
      count: false,
    }),
  ])
  // At most one auto-redeem reward per program: the oldest assignment.
  const autoOf = new Map<string, RewardAssignment>()
  for (const a of autos.data) if (!autoOf.has(a.value.related_object_id)) autoOf.set(a.value.related_object_id, a.value)
  const ruleIds = [
    ...new Set(rules.data.flatMap((r) => (r.value.validation_rule_id ? [r.value.validation_rule_id] : []))),
  ]
  const autoIds = [...autoOf.values()].map((a) => a.id)
  const [ruleRows, rewards, autoAssignments] = await Promise.all([
    ruleIds.length === 0 ? [] : tx.store.validation_rules.getMany(ruleIds),
    autoOf.size === 0 ? [] : tx.store.rewards.getMany([...new Set([...autoOf.values()].map((a) => a.reward_id))]),
    autoIds.length === 0
      ? { data: [] }
      : tx.store.validation_rule_assignments.list({
          where: { related_object_id: { in: autoIds } },
          order: { field: 'created_at', direction: 'asc' },
          count: false,
        }),
  ])
  const autoRuleIds = [...new Set(autoAssignments.data.map((a) => a.value.rule_id))]
  const autoRules = autoRuleIds.length === 0 ? [] : await tx.store.validation_rules.getMany(autoRuleIds)
  const validationRules = Object.fromEntries(ruleRows.map((r) => [r.value.id, r.value as ValidationRule]))
  const rewardById = new Map(rewards.map((r) => [r.value.id, r]))
  const autoRuleById = new Map(autoRules.map((r) => [r.value.id, r.value as ValidationRule]))
  const loaded = new Map<string, LoadedProgram>()
  for (const campaign of campaigns) {
    // Tiers this transaction created are known to it, not to the store yet.
    let programTiers = knownCampaignTiers(tx, campaign.id)
    if (!programTiers) {
      programTiers = tiers.data.map((t) => t.value).filter((t) => t.campaign_id === campaign.id) as LoyaltyTier[]
      primeCampaignTiers(tx, campaign.id, programTiers)
      programTiers = knownCampaignTiers(tx, campaign.id) ?? []
    }
    const assignment = autoOf.get(campaign.id)
    const reward = assignment ? rewardById.get(assignment.reward_id) : undefined
    loaded.set(campaign.id, {
      campaign,
      rules: rules.data.map((r) => r.value).filter((r) => r.campaign_id === campaign.id) as EarningRule[],
      validationRules,
      tiers: programTiers,
      autoRedeem:
        assignment && reward
          ? {
              assignment,
              reward: reward.value,
              stored: reward,
              rules: autoAssignments.data
                .filter((a) => a.value.related_object_id === assignment.id)
                .flatMap((a) => autoRuleById.get(a.value.rule_id) ?? []),
            }
          : null,
    })
  }
  return loaded
}

/** The customer's auto-redemption in this transaction, with the day's earlier ones counted once. */
export function autoRedeemRun(tx: Tx, customerId: string): Promise<OpenRun> {
  const runs = runsOf(tx)
  let run = runs.get(customerId)
  if (!run) {
    const timeZone = tx.ctx.config.timezone
    const today = localDate(tx.now, timeZone)
    const start = startOfDay(today, timeZone)
    run = tx.store.redemptions
      .list({
        where: {
          customer_id: customerId,
          'channel.channel_type': 'AUTO_REDEEM',
          date: {
            after: new Date(start.getTime() - 1).toISOString(),
            before: endOfDayExclusive(today, timeZone).toISOString(),
          },
        },
      })
      .then((page) => {
        const earlier = new Set(page.data.map((r) => r.value.channel.channel_id ?? r.value.id))
        return { id: tx.id(AUTO_REDEEM_RUN_PREFIX), redeemed: 0, runsToday: earlier.size }
      })
    runs.set(customerId, startEarly(run))
  }
  return run
}

/** Prefix of an auto-redemption's id (`channel.channel_id` of the rewards it redeemed). */
export const AUTO_REDEEM_RUN_PREFIX = 'autor_'

/**
 * Starts the reads an earning trigger for the customer will need (programs, cards, standings, the
 * day's auto-redemptions), without waiting: the operation reads its own data meanwhile, and the
 * cascade later finds them loaded. The cards named in `spendFrom` (codes the request pays with)
 * also start reading their spending order.
 */
export function prefetchMember(
  tx: Tx,
  customerId: string | null | undefined,
  options: { spendFrom?: readonly string[] } = {},
): void {
  const work = loyaltyPrograms(tx).then(async (programs) => {
    const campaigns = programs.map((p) => p.value)
    await Promise.all([
      loadPrograms(tx, campaigns),
      customerId
        ? Promise.all(
            campaigns.map(async (c) => {
              readAheadForAutoJoin(tx, c, customerId)
              const held = await findMemberCard(tx, c.id, customerId)
              const spending = options.spendFrom?.includes(held?.value.code ?? '') ?? false
              if (held) await Promise.all([loadCard(tx, held, { spending }), memberStanding(tx, held.value.id)])
            }),
          )
        : undefined,
      customerId
        ? loadPrograms(tx, campaigns).then((loaded) =>
            loaded.some((p) => p.autoRedeem) ? autoRedeemRun(tx, customerId) : undefined,
          )
        : undefined,
    ])
  })
  // Never awaited: the step that needs a read awaits its cached promise and gets its failure.
  void startEarly(work)
}

/**
 * The member as the cascade reads them: the card's stored balance and what of it is spendable, no
 * ledger (docs/storage.md#loyalty-cards-and-their-buckets). A program whose tiers count the points
 * collected in a period also reads the card's buckets created in it, spent or expired ones included.
 */
export async function cascadeCard(
  tx: Tx,
  card: CardState,
  holder: Customer | null,
  program: Pick<CascadeProgram, 'campaign' | 'tiers'>,
): Promise<CascadeCard> {
  const config = program.campaign.loyalty_tiers_expiration
  const inPeriod = program.tiers.length > 0 && config?.qualification_type === 'POINTS_IN_PERIOD'
  const [standing, period] = await Promise.all([
    memberStanding(tx, card.voucher.id),
    inPeriod ? periodBuckets(tx, card, config?.qualification_period ?? 'MONTH') : [],
  ])
  const live = new Set(card.buckets.map((b) => b.id))
  return {
    voucher_id: card.voucher.id,
    balance: card.voucher.loyalty_card?.balance ?? 0,
    spendable: card.spendable,
    buckets: [...card.buckets, ...period.filter((b) => !live.has(b.id))],
    standing,
    customer: holder === null ? null : cascadeCustomer(holder),
  }
}

async function periodBuckets(tx: Tx, card: CardState, period: TierPeriod): Promise<PointsBucket[]> {
  const { start } = periodBounds(tx.now, period, tx.ctx.config.timezone)
  const page = await tx.store.points_buckets.list({
    where: { voucher_id: card.voucher.id, created_at: { after: new Date(start.getTime() - 1).toISOString() } },
    count: false,
  })
  return page.data.map((row) => row.value)
}

export function cascadeCustomer(c: Customer): CascadeCustomer {
  return {
    id: c.id,
    source_id: c.source_id,
    metadata: c.metadata,
    segments: c.segments ?? [],
    birthdate: c.birthdate ?? null,
  }
}

/** Decides what a trigger does to one member of one program. */
export async function decideCascade(
  tx: Tx,
  program: LoadedProgram,
  card: CardState | null,
  holder: Customer,
  trigger: CascadeTrigger,
): Promise<CascadeResult> {
  const [member, run] = await Promise.all([
    card ? cascadeCard(tx, card, card.voucher.holder_id ? holder : null, program) : null,
    program.autoRedeem ? autoRedeemRun(tx, holder.id) : { id: '', redeemed: 0, runsToday: 0 },
  ])
  return runCascade({
    program,
    card: member,
    customer: cascadeCustomer(holder),
    trigger,
    run,
    now: tx.now,
    timeZone: tx.ctx.config.timezone,
  })
}
