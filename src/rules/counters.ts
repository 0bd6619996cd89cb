import type { Counter, Guard } from '../storage/ports'
import type { CounterBound, EvalCounters, PeriodCounts } from './conditions'
import { addDays, type LocalDate, localDate } from './zoned-calendar'

/*
 * Stored counters (docs/storage.md#counters): what budget rules count, kept in counter rows that a
 * redemption increments in its own commit, so a rule reads a few rows instead of every past
 * redemption, and guards on those increments keep budgets exact under concurrency.
 *
 * Rows, per calendar period (the total, and the day, week from Monday and month in the engine's
 * time zone of the redemption):
 *   r:<redeemable>            redemptions of a code or tier
 *   rc:<redeemable>:<customer> the customer's redemptions of it
 *   c:<campaign>              redemptions in the campaign (the total row also sums order amounts and discounts)
 *   cc:<campaign>:<customer>  the customer's redemptions in the campaign
 *   cu:<campaign>             distinct customers who redeemed in the campaign
 * A code outside any campaign is its own campaign: c and cc are its r and rc rows, cu is cu:<code>.
 * A period row's id ends with `|d:2026-11-24`, `|w:2026-11-23` or `|m:2026-11`.
 */

export type Period = 'total' | 'daily' | 'weekly' | 'monthly'
const PERIODS: readonly Period[] = ['total', 'daily', 'weekly', 'monthly']

/** Who and what a redemption counts for. */
export interface CounterScope {
  redeemableId: string
  campaignId: string | null
  customerId: string | null
}

type Family = 'r' | 'rc' | 'c' | 'cc' | 'cu'

const iso = (d: LocalDate) =>
  `${String(d.year).padStart(4, '0')}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`

// The last answer: a request asks for the same instant once per redeemable, and each answer costs an
// `Intl` formatting (memoisation of a pure function, not state).
let lastSuffixes: { ms: number; timeZone: string; value: Record<Period, string> } | undefined

/** The period suffixes of an instant in a time zone. */
export function periodSuffixes(at: Date, timeZone: string): Record<Period, string> {
  const ms = at.getTime()
  if (lastSuffixes?.ms === ms && lastSuffixes.timeZone === timeZone) return lastSuffixes.value
  const value = computeSuffixes(at, timeZone)
  lastSuffixes = { ms, timeZone, value: Object.freeze(value) }
  return value
}

function computeSuffixes(at: Date, timeZone: string): Record<Period, string> {
  const day = localDate(at, timeZone)
  const weekday = new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay()
  const monday = addDays(day, -((weekday + 6) % 7))
  return {
    total: '',
    daily: `|d:${iso(day)}`,
    weekly: `|w:${iso(monday)}`,
    monthly: `|m:${iso(day).slice(0, 7)}`,
  }
}

function familyBase(family: Family, scope: CounterScope): string | null {
  const { redeemableId, campaignId, customerId } = scope
  switch (family) {
    case 'r':
      return `r:${redeemableId}`
    case 'rc':
      return customerId ? `rc:${redeemableId}:${customerId}` : null
    // A code outside any campaign is its own campaign: the campaign-level rules count its own
    // redemptions, on its own rows (docs/behaviour.md#standalone-codes-and-campaign-budgets).
    case 'c':
      return campaignId ? `c:${campaignId}` : `r:${redeemableId}`
    case 'cc':
      if (!customerId) return null
      return campaignId ? `cc:${campaignId}:${customerId}` : `rc:${redeemableId}:${customerId}`
    case 'cu':
      return `cu:${campaignId ?? redeemableId}`
  }
}

const FAMILIES: readonly Family[] = ['r', 'rc', 'c', 'cc', 'cu']

/** The ids of every counter row of a scope at an instant: what a validation reads, in one batch. */
export function counterIds(scope: CounterScope, at: Date, timeZone: string): string[] {
  const suffixes = periodSuffixes(at, timeZone)
  const ids: string[] = []
  // Every request reads these: plain loops, no intermediate arrays.
  for (const family of FAMILIES) {
    // A standalone code's campaign rows are its own (`familyBase`): each row once.
    if (!scope.campaignId && (family === 'c' || family === 'cc')) continue
    const base = familyBase(family, scope)
    if (base === null) continue
    for (const p of PERIODS) ids.push(base + suffixes[p])
  }
  return ids
}

const countOf = (row: Counter | undefined): number => (typeof row?.count === 'number' ? row.count : 0)

/** What the budget rules read, from the counter rows found (absent rows count 0). */
export function evalCounters(
  scope: CounterScope,
  rows: ReadonlyMap<string, Counter>,
  at: Date,
  timeZone: string,
): EvalCounters {
  const suffixes = periodSuffixes(at, timeZone)
  const periods = (family: Family): PeriodCounts => {
    const base = familyBase(family, scope)
    if (base === null) return { total: 0, daily: 0, weekly: 0, monthly: 0 }
    return {
      total: countOf(rows.get(base + suffixes.total)),
      daily: countOf(rows.get(base + suffixes.daily)),
      weekly: countOf(rows.get(base + suffixes.weekly)),
      monthly: countOf(rows.get(base + suffixes.monthly)),
    }
  }
  const campaign = rows.get(familyBase('c', scope) as string)
  const sum = (field: string) => (typeof campaign?.[field] === 'number' ? (campaign[field] as number) : 0)
  return {
    campaign_orders_amount: sum('amount'),
    campaign_orders_amount_discounted: sum('discount'),
    campaign_redemptions: periods('c'),
    campaign_customers: periods('cu'),
    customer_campaign_redemptions: periods('cc'),
    redemptions: periods('r'),
    customer_redemptions: periods('rc'),
  }
}

/** One counter write: an increment of a counter row, created on first use, bounded by `guard`. */
export interface CounterWrite {
  id: string
  by: Record<string, number>
  guard?: Record<string, Guard>
}

/** Which row and field a budget rule name reads. */
function ruleTarget(rule: string): { family: Family; period: Period; field: string } | null {
  const period = (suffix: string | undefined): Period | null =>
    suffix === undefined ? 'total' : (PERIODS as readonly string[]).includes(suffix) ? (suffix as Period) : null
  const m =
    /^(campaign\.redemptions\.count|campaign\.redemptions\.customers_count|redemption\.count\.per_customer)(?:\.(\w+))?$/.exec(
      rule,
    )
  if (m) {
    const p = period(m[2])
    if (p === null) return null
    const family: Family =
      m[1] === 'campaign.redemptions.count' ? 'c' : m[1] === 'redemption.count.per_customer' ? 'rc' : 'cu'
    return { family, period: p, field: 'count' }
  }
  if (rule === 'campaign.orders.amount') return { family: 'c', period: 'total', field: 'amount' }
  if (rule === 'campaign.orders.amount_discounted') return { family: 'c', period: 'total', field: 'discount' }
  const daily = /^redemption\.count\.(daily|weekly|monthly)$/.exec(rule)
  if (daily) return { family: 'r', period: daily[1] as Period, field: 'count' }
  return null
}

function narrow(into: Record<string, Guard>, field: string, lo: number, hi: number): void {
  const g = into[field] ?? {}
  if (Number.isFinite(lo)) g.min = Math.max(g.min ?? lo, lo)
  if (Number.isFinite(hi)) g.max = Math.min(g.max ?? hi, hi)
  into[field] = g
}

/**
 * The counter increments of one successful redemption (or, with `sign` -1, of its rollback), with
 * the guards that keep its decision true: every budget bound the rules relied on, and, for the
 * distinct-customer count, that this customer's first redemption in the campaign is still the first.
 * `before` holds the rows as read when deciding (for a rollback: as read now).
 */
export function counterWrites(input: {
  scope: CounterScope
  at: Date
  timeZone: string
  before: ReadonlyMap<string, Counter>
  orderAmount: number
  discount: number
  bounds?: readonly CounterBound[]
  sign?: 1 | -1
  /**
   * What earlier redemptions of the same request add to these rows in the same commit (by row id and
   * field): a customer is new to a campaign only once per request. Each redeemable was decided on the
   * counters plus what its siblings add before it, so its bounds hold for the row as it leaves it.
   */
  pending?: ReadonlyMap<string, Readonly<Record<string, number>>>
}): CounterWrite[] {
  const { scope, before } = input
  const pendingOf = (id: string, field: string) => input.pending?.get(id)?.[field] ?? 0
  const sign = input.sign ?? 1
  const suffixes = periodSuffixes(input.at, input.timeZone)
  const writes = new Map<string, CounterWrite>()
  const write = (id: string): CounterWrite => {
    let w = writes.get(id)
    if (!w) {
      w = { id, by: {} }
      writes.set(id, w)
    }
    return w
  }
  for (const family of ['r', 'rc', 'c', 'cc'] as const) {
    const base = familyBase(family, scope)
    if (base === null) continue
    for (const p of PERIODS) write(base + suffixes[p]).by.count = sign
  }
  const total = write(familyBase('c', scope) as string)
  total.by.amount = sign * input.orderAmount
  total.by.discount = sign * input.discount
  // A code outside any campaign keeps its distinct customers only while a rule counts them (a guard
  // on every first redemption would cost contended codes their alternatives), and takes back what it kept.
  const distinct =
    scope.campaignId !== null ||
    (sign === 1
      ? (input.bounds ?? []).some((b) => b.rule.startsWith('campaign.redemptions.customers_count'))
      : countOf(before.get(familyBase('cu', scope) as string)) > 0)
  if (distinct) {
    // A customer's first redemption in the campaign (per period) adds a distinct customer; the guard on
    // their own count keeps two concurrent "first" redemptions from both counting them.
    const cc = familyBase('cc', scope)
    for (const p of PERIODS) {
      const cu = write(`${familyBase('cu', scope)}${suffixes[p]}`)
      if (cc === null) {
        cu.by.count = 0
        continue
      }
      const mine = countOf(before.get(cc + suffixes[p])) + pendingOf(cc + suffixes[p], 'count')
      const changes = sign === 1 ? mine === 0 : mine === 1
      cu.by.count = changes ? sign : 0
      const own = write(cc + suffixes[p])
      own.guard = own.guard ?? {}
      const after = mine + sign
      if (changes) narrow(own.guard, 'count', after, after)
      else narrow(own.guard, 'count', sign === 1 ? 2 : 1, Number.POSITIVE_INFINITY)
    }
  }
  for (const bound of input.bounds ?? []) {
    const target = ruleTarget(bound.rule)
    if (target === null) continue
    const base = familyBase(target.family, scope)
    if (base === null) continue
    const w = write(base + suffixes[target.period])
    if (w.by[target.field] === undefined) w.by[target.field] = 0
    w.guard = w.guard ?? {}
    // The decision counted the request's earlier redemptions, counts and sums (`withSiblings` in
    // src/rules/redeemables/decide.ts): its bounds are on the row as this write leaves it.
    narrow(w.guard, target.field, bound.lo, bound.hi)
  }
  for (const w of writes.values()) {
    if (w.guard && Object.keys(w.guard).length === 0) delete w.guard
  }
  return [...writes.values()]
}

/** Adds a redemption's counter writes to what the request has written so far (`counterWrites`' `pending`). */
export function addPending(pending: Map<string, Record<string, number>>, writes: readonly CounterWrite[]): void {
  for (const w of writes) {
    const sum = { ...pending.get(w.id) }
    for (const [field, n] of Object.entries(w.by)) sum[field] = (sum[field] ?? 0) + n
    pending.set(w.id, sum)
  }
}
