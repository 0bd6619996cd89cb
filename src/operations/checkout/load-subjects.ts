import type { Category } from '../../model/common'
import type { PromotionTier } from '../../model/promotion'
import type { ValidationRule, ValidationRuleAssignment } from '../../model/validation-rule'
import type { Voucher } from '../../model/voucher'
import type { RedeemableSubject } from '../../rules/redeemables'
import type { RedeemableRequest } from '../../schema/stackable'
import type { Entity, Store, Stored } from '../../storage/ports'
import { assignedRules } from '../campaigns/rule-assignments'
import { startEarly } from '../kernel/early-reads'
import { type LoadHints, remember } from '../kernel/load-hints'
import type { Context } from '../kernel/unit-of-work'
import { type RedemptionVoucherExtras, voucherExtras } from '../vouchers/redeemed-voucher'
import { type LoadedLocks, mayBeRefusedByLocks, othersLocks, readExpiredLocks, storedLocks } from './session-locks'

/*
 * The second level of a checkout's reads (docs/storage.md#load-decide-commit): every found redeemable's
 * campaign, categories, rules, holders, expired locks and reward, one read per collection.
 */

export type ExpandedRequest = Exclude<RedeemableRequest, { object: 'promotion_stack' }>

/** A requested code or tier as found in the store (nothing when it is not there). */
export interface Found {
  voucher?: Stored<Voucher>
  tier?: Stored<PromotionTier>
}

/** What loading the subjects collects for the commit and the result, by id. */
export interface Collected {
  vouchers: Map<string, Stored<Voucher>>
  tiers: Map<string, Stored<PromotionTier>>
  /** Only a redemption shows them. */
  extras: Map<string, RedemptionVoucherExtras> | undefined
  /** The own locks (read in level 1), and the expired locks read here for codes the locks could refuse. */
  locks: LoadedLocks
}

export const NONE: ReadonlyMap<string, never> = new Map<string, never>()

/** Stored values by id; most requests find none of a kind, and share one empty map. */
function byId<T extends { id: string }>(found: readonly { value: T }[]): ReadonlyMap<string, T> {
  if (found.length === 0) return NONE
  const out = new Map<string, T>()
  for (const { value } of found) out.set(value.id, value)
  return out
}

/**
 * The keys of a request's second level (docs/storage.md#load-decide-commit), computed from what level 1
 * found: the ids each read is made with, and nothing else. Two plans that are equal make the same reads
 * (`samePlan`), which is what lets a level started early from hints stand in for the one level 1 asks
 * for (docs/postgres.md#loads).
 */
export interface SubjectReads {
  campaignIds: string[]
  categoryIds: string[]
  /** The redeemables and their campaigns, whose rule assignments are read (then the rules behind them). */
  relatedIds: string[]
  holderIds: string[]
  /** Codes whose counted locks could refuse this request: their expired locks are read. */
  tight: string[]
  /** Codes the session holds live counted locks on that the request does not name. */
  elsewhere: string[]
  /** Per request, a loyalty card paying with a reward: the reward, the card and the card's program. */
  rewards: ({ rewardId: string; card: Voucher } | undefined)[]
}

/** What the reads of a `SubjectReads` answered. */
export interface SubjectAnswers {
  campaigns: readonly Stored<Entity<'campaigns'>>[]
  categories: readonly Stored<Entity<'categories'>>[]
  assigned: { assignments: ValidationRuleAssignment[]; rules: ValidationRule[] }
  expired: Stored<Entity<'sessions'>>[][]
  holders: readonly Stored<Entity<'customers'>>[]
  loyalties: (NonNullable<RedeemableSubject['loyalty']> | undefined)[]
  lockedCodes: readonly Stored<Voucher>[]
  /** The rules of the reward assignments, read once the rewards are known. */
  rewardRules: { assignments: ValidationRuleAssignment[]; rules: ValidationRule[] } | undefined
}

/**
 * Every redeemable's details with one read per collection, however many the request names
 * (docs/storage.md#load-decide-commit): their campaigns, categories, rule assignments (then the rules
 * behind them) and holders, the expired session locks of codes that locks could refuse, and for a loyalty card paying with a reward, the
 * reward, its assignment and the card's tier.
 */
export async function loadSubjects(
  ctx: Context,
  requests: readonly ExpandedRequest[],
  found: readonly Found[],
  now: Date,
  sessionKey: string | undefined,
  into: Collected,
): Promise<RedeemableSubject[]> {
  const reads = subjectReads(requests, found, into.locks)
  return assembleSubjects(requests, found, reads, await readSubjects(ctx.store, reads, now, sessionKey), into)
}

/** The second level's keys for what level 1 found (pure: the same found values give the same plan). */
export function subjectReads(
  requests: readonly ExpandedRequest[],
  found: readonly Found[],
  locks: LoadedLocks,
): SubjectReads {
  // Collected as lists, each made distinct once (most requests name one code: no set at all).
  const campaignIds: string[] = []
  const categoryIds: string[] = []
  const relatedIds: string[] = []
  const holderIds: string[] = []
  for (let i = 0; i < found.length; i++) {
    const f = found[i]
    const entity = f?.voucher?.value ?? f?.tier?.value
    if (entity === undefined) continue
    if (entity.campaign_id) campaignIds.push(entity.campaign_id)
    for (const id of categoryIdsOf(entity)) categoryIds.push(id)
    relatedIds.push(entity.id)
    const v = f?.voucher?.value
    if (v) {
      if (v.campaign_id) relatedIds.push(v.campaign_id)
      if (v.holder_id) holderIds.push(v.holder_id)
    }
  }
  // A code whose counted locks could refuse this request: its expired locks are released first.
  const tight = [
    ...new Map(
      found.flatMap((f) => {
        const v = f.voucher?.value
        return v && mayBeRefusedByLocks(v, othersLocks(v, locks)) ? [[v.id, v] as const] : []
      }),
    ).keys(),
  ]
  // The session's live counted locks on codes the request does not name: the redemption releases
  // them, and a code deleted since holds no counter to take them out of (docs/storage.md#session-locks).
  const named = new Set(found.flatMap((f) => (f.voucher ? [f.voucher.value.id] : [])))
  const elsewhere = [
    ...new Set(
      [...locks.own.values()].flatMap((l) =>
        l.value.voucher_id && l.value.counted === true && l.value.released_at === null && !named.has(l.value.voucher_id)
          ? [l.value.voucher_id]
          : [],
      ),
    ),
  ]
  const rewards = requests.map((request, i) => {
    const v = found[i]?.voucher?.value
    return v?.type === 'LOYALTY_CARD' && request.object === 'voucher' && request.reward
      ? { rewardId: request.reward.id, card: v }
      : undefined
  })
  return {
    campaignIds: distinct(campaignIds),
    categoryIds: distinct(categoryIds),
    relatedIds: distinct(relatedIds),
    holderIds: distinct(holderIds),
    tight,
    elsewhere,
    rewards,
  }
}

/** Whether two plans make the same reads: every id in the same place (a reward by its id, the card's and its program's). */
export function samePlan(a: SubjectReads, b: SubjectReads): boolean {
  return (
    sameIds(a.campaignIds, b.campaignIds) &&
    sameIds(a.categoryIds, b.categoryIds) &&
    sameIds(a.relatedIds, b.relatedIds) &&
    sameIds(a.holderIds, b.holderIds) &&
    sameIds(a.tight, b.tight) &&
    sameIds(a.elsewhere, b.elsewhere) &&
    a.rewards.length === b.rewards.length &&
    a.rewards.every((x, i) => {
      const y = b.rewards[i]
      return x === undefined || y === undefined
        ? x === y
        : x.rewardId === y.rewardId && x.card.id === y.card.id && x.card.campaign_id === y.card.campaign_id
    })
  )
}

export function sameIds(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i])
}

/** Starts the second level's reads (one per collection) and the rules of any reward assignment after them. */
export async function readSubjects(
  store: Store,
  reads: SubjectReads,
  now: Date,
  sessionKey: string | undefined,
  hints?: LoadHints,
): Promise<SubjectAnswers> {
  const { campaignIds, categoryIds, relatedIds, holderIds, tight, elsewhere } = reads
  // The rules the same redeemables' assignments named last time are read with the assignments
  // (docs/postgres.md#loads), and stand only if the assignments name the same.
  const rulesKey = relatedIds.join(' ')
  const ruleIds = hints?.rules.get(rulesKey)
  const early =
    ruleIds && ruleIds.length > 0
      ? { ids: ruleIds, rules: startEarly(store.validation_rules.getMany(ruleIds)) }
      : undefined
  const [campaigns, categories, assigned, expired, holders, loyalties, lockedCodes] = await Promise.all([
    campaignIds.length > 0 ? store.campaigns.getMany(campaignIds) : [],
    categoryIds.length > 0 ? store.categories.getMany(categoryIds) : [],
    assignedRules(store, relatedIds, early).then((found) => {
      if (hints) remember(hints.rules, rulesKey, distinctRuleIds(found.assignments), hints.capacity)
      return found
    }),
    Promise.all(tight.map((id) => readExpiredLocks(store, id, now, sessionKey))),
    holderIds.length > 0 ? store.customers.getMany(holderIds) : [],
    Promise.all(reads.rewards.map((r) => (r ? loadReward(store, r.rewardId, r.card) : undefined))),
    elsewhere.length > 0 ? store.vouchers.getMany(elsewhere) : [],
  ])
  // A pay-with-points reward assignment may carry rules of its own (docs/concepts.md#validation-rules):
  // they hold for this redeemable like the card's and its campaign's.
  const rewardAssignmentIds = loyalties.flatMap((l) => (l?.assignment ? [l.assignment.id] : []))
  const rewardRules = rewardAssignmentIds.length > 0 ? await assignedRules(store, rewardAssignmentIds) : undefined
  return { campaigns, categories, assigned, expired, holders, loyalties, lockedCodes, rewardRules }
}

/** The subjects the decision sees, from what level 1 found and the answers to its plan's reads. */
export function assembleSubjects(
  requests: readonly ExpandedRequest[],
  found: readonly Found[],
  reads: SubjectReads,
  answers: SubjectAnswers,
  into: Collected,
): RedeemableSubject[] {
  const { campaigns, categories, assigned, expired, holders, loyalties, lockedCodes, rewardRules } = answers
  const { tight, elsewhere } = reads
  if (elsewhere.length > 0) {
    const present = new Set(lockedCodes.map((v) => v.value.id))
    into.locks.gone = new Set(elsewhere.filter((id) => !present.has(id)))
  }
  for (const [i, id] of tight.entries()) into.locks.expired.set(id, expired[i] ?? [])

  const campaignById = byId(campaigns)
  const categoryById = byId(categories)
  const holderById = byId(holders)
  const ruleById = new Map(assigned.rules.map((r) => [r.id, r]))
  const rewardRuleById = new Map(rewardRules?.rules.map((r) => [r.id, r]))
  /** The assignments to these objects, oldest first, and their rules, each once in that order. */
  const rulesOf = (
    relatedTo: readonly string[],
    from: { assignments: readonly ValidationRuleAssignment[] } = assigned,
    rules: ReadonlyMap<string, ValidationRule> = ruleById,
  ) => {
    // Most codes have no rules: nothing to pick from.
    if (from.assignments.length === 0) return { assignments: [], rules: [] }
    const assignments = from.assignments.filter((a) => relatedTo.includes(a.related_object_id))
    const ids = [...new Set(assignments.map((a) => a.rule_id))]
    return { assignments, rules: ids.flatMap((id) => rules.get(id) ?? []) }
  }
  const categoriesOf = (entity: Voucher | PromotionTier) =>
    categoryIdsOf(entity).flatMap((id) => categoryById.get(id) ?? [])

  return requests.map((request, index): RedeemableSubject => {
    const subject: RedeemableSubject = {
      index,
      object: request.object,
      requested_id: request.id,
      categories: [],
      validation_rules: [],
    }
    const f = found[index] ?? {}
    if (request.object === 'voucher') {
      if (request.gift) subject.gift = request.gift.credits === undefined ? {} : { credits: request.gift.credits }
      if (request.reward) {
        subject.reward =
          request.reward.points === undefined
            ? { id: request.reward.id }
            : { id: request.reward.id, points: request.reward.points }
      }
      const voucher = f.voucher
      if (!voucher) return subject
      into.vouchers.set(voucher.value.id, voucher)
      const v = voucher.value
      // The decision sees what other sessions hold (docs/storage.md#session-locks).
      subject.voucher = v.session_locks ? { ...v, session_locks: storedLocks(othersLocks(v, into.locks)) } : v
      subject.campaign = v.campaign_id ? (campaignById.get(v.campaign_id) ?? null) : null
      subject.categories = categoriesOf(v)
      const loyalty = loyalties[index]
      if (loyalty) subject.loyalty = loyalty
      const own = rulesOf(v.campaign_id ? [v.id, v.campaign_id] : [v.id])
      const assignmentId = loyalty?.assignment?.id
      subject.validation_rules =
        assignmentId && rewardRules
          ? [...own.rules, ...rulesOf([assignmentId], rewardRules, rewardRuleById).rules]
          : own.rules
      const holder = v.holder_id ? holderById.get(v.holder_id) : undefined
      if (v.holder_id) subject.holder_source_id = holder?.source_id ?? null
      into.extras?.set(v.id, voucherExtras(own.assignments, own.rules, holder ?? null))
      return subject
    }
    const tier = f.tier
    if (!tier) return subject
    into.tiers.set(tier.value.id, tier)
    subject.tier = tier.value
    subject.campaign = campaignById.get(tier.value.campaign_id) ?? null
    subject.categories = categoriesOf(tier.value)
    subject.validation_rules = rulesOf([tier.value.id]).rules
    return subject
  })
}

/** The rule ids of assignments, each once, in the order `assignedRules` reads them. */
function distinctRuleIds(assignments: readonly ValidationRuleAssignment[]): string[] {
  return [...new Set(assignments.map((a) => a.rule_id))]
}

/** The same ids in the same order, each once. */
function distinct(ids: string[]): string[] {
  return ids.length <= 1 ? ids : [...new Set(ids)]
}

/** The ids of a redeemable's categories: those it embeds, then `category_id` (read as stored now: their hierarchy may have changed). */
function categoryIdsOf(entity: { categories: readonly Category[]; category_id: string | null }): string[] {
  if (entity.categories.length === 0) return entity.category_id ? [entity.category_id] : []
  const ids = new Set(entity.categories.map((c) => c.id))
  if (entity.category_id) ids.add(entity.category_id)
  return [...ids]
}

async function loadReward(
  store: Store,
  rewardId: string,
  card: Voucher,
): Promise<NonNullable<RedeemableSubject['loyalty']>> {
  // The reward, its assignment to the card's program and the card's tier standing are read together.
  const [reward, assignments, standings] = await Promise.all([
    store.rewards.get(rewardId),
    card.campaign_id
      ? store.reward_assignments.list({
          where: { reward_id: rewardId, related_object_id: card.campaign_id },
          count: false,
        })
      : undefined,
    store.member_tiers.list({ where: { voucher_id: card.id }, count: false }),
  ])
  if (!reward || !card.campaign_id) return { reward: reward?.value ?? null, assignment: null, tier: null }
  const standing = standings.data[0]?.value
  const tier = standing?.tier_id ? ((await store.loyalty_tiers.get(standing.tier_id))?.value ?? null) : null
  return { reward: reward.value, assignment: assignments?.data[0]?.value ?? null, tier }
}
