import type { Counter, Guard } from '../storage/ports'
import type { CounterBound, EvalCounters, PeriodCounts } from './conditions'
import { addDays, type LocalDate, localDate } from './zoned-calendar'

/*
 * Stored counters (docs/storage.md#counters): what budget rules count, kept in counter rows that a
 * redemption increments in its own commit, so a rule reads a few rows instead of every past
 * redemption, and guards on those increments keep budgets exact under concurrency.
 *
 * One row per counter, holding its total (`count`) and a field per current calendar period (the day,
 * week from Monday and month in the engine's time zone of the redemption): `d:2026-11-26`,
 * `w:2026-11-23`, `m:2026-11`.
 *   r:<redeemable>            redemptions of a code or tier
 *   rc:<redeemable>:<customer> the customer's redemptions of it
 *   c:<campaign>              redemptions in the campaign (also sums order amounts and discounts: `amount`, `discount`)
 *   cc:<campaign>:<customer>  the customer's redemptions in the campaign
 *   cu:<campaign>             distinct customers who redeemed in the campaign
 * A code outside any campaign is its own campaign: c and cc are its r and rc rows, cu is cu:<code>.
 * A redemption's increment removes the period fields it read that are older than the previous period
 * of their kind (`staleFields`), so a row keeps at most two fields of each kind.
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

/** The fields of a counter row that count an instant's periods, and the oldest key of each kind kept. */
export interface PeriodFields {
  total: 'count'
  daily: string
  weekly: string
  monthly: string
  /** Per kind (`d`, `w`, `m`): the previous period's key; fields older than it are stale. */
  keep: Record<'d' | 'w' | 'm', string>
}

const iso = (d: LocalDate) =>
  `${String(d.year).padStart(4, '0')}-${String(d.month).padStart(2, '0')}-${String(d.day).padStart(2, '0')}`

// The last answer: a request asks for the same instant once per redeemable, and each answer costs an
// `Intl` formatting (memoisation of a pure function, not state).
let lastFields: { ms: number; timeZone: string; value: PeriodFields } | undefined

/** The period fields of an instant in a time zone. */
export function periodFields(at: Date, timeZone: string): PeriodFields {
  const ms = at.getTime()
  if (lastFields?.ms === ms && lastFields.timeZone === timeZone) return lastFields.value
  const value = computeFields(at, timeZone)
  lastFields = { ms, timeZone, value: Object.freeze(value) }
  return value
}

function computeFields(at: Date, timeZone: string): PeriodFields {
  const day = localDate(at, timeZone)
  const weekday = new Date(Date.UTC(day.year, day.month - 1, day.day)).getUTCDay()
  const monday = addDays(day, -((weekday + 6) % 7))
  const lastMonth = day.month === 1 ? { year: day.year - 1, month: 12, day: 1 } : { ...day, month: day.month - 1 }
  return {
    total: 'count',
    daily: `d:${iso(day)}`,
    weekly: `w:${iso(monday)}`,
    monthly: `m:${iso(day).slice(0, 7)}`,
    keep: {
      d: iso(addDays(day, -1)),
      w: iso(addDays(monday, -7)),
      m: iso(lastMonth).slice(0, 7),
    },
  }
}

/**
 * The period fields of a row older than the previous period of their kind: a redemption's increment
 * removes them. The previous period is kept so that a request decided just before midnight and
 * committed just after (or on a process whose clock is a little behind) still counts against a field
 * that is there.
 */
export function staleFields(row: Counter | undefined, fields: PeriodFields): string[] {
  if (row === undefined) return []
  const out: string[] = []
  for (const key of Object.keys(row)) {
    if (key.length < 9 || key[1] !== ':') continue
    const kind = key[0]
    if (kind !== 'd' && kind !== 'w' && kind !== 'm') continue
    if (key.slice(2) < fields.keep[kind]) out.push(key)
  }
  return out
}

/**
 * A period row of the releases before one row per counter (`r:v_1|d:2026-11-26`): its base row and
 * the field it becomes there (`d:2026-11-26`); null for any other id.
 */
export function legacyPeriodRow(id: string): { base: string; field: string } | null {
  const m = /^((?:r|rc|c|cc|cu):[^|]*)\|([dwm]:[0-9-]+)$/.exec(id)
  return m ? { base: m[1] as string, field: m[2] as string } : null
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

/** The ids of every counter row of a scope: what a validation reads, in one batch. */
export function counterIds(scope: CounterScope): string[] {
  const ids: string[] = []
  for (const family of FAMILIES) {
    // A standalone code's campaign rows are its own (`familyBase`): each row once.
    if (!scope.campaignId && (family === 'c' || family === 'cc')) continue
    const base = familyBase(family, scope)
    if (base !== null) ids.push(base)
  }
  return ids
}

const num = (x: unknown): number => (typeof x === 'number' ? x : 0)

/** What the budget rules read, from the counter rows found (absent rows and fields count 0). */
export function evalCounters(
  scope: CounterScope,
  rows: ReadonlyMap<string, Counter>,
  at: Date,
  timeZone: string,
): EvalCounters {
  const fields = periodFields(at, timeZone)
  const periods = (family: Family): PeriodCounts => {
    const base = familyBase(family, scope)
    const row = base === null ? undefined : rows.get(base)
    if (row === undefined) return { total: 0, daily: 0, weekly: 0, monthly: 0 }
    return {
      total: num(row.count),
      daily: num(row[fields.daily]),
      weekly: num(row[fields.weekly]),
      monthly: num(row[fields.monthly]),
    }
  }
  const campaign = rows.get(familyBase('c', scope) as string)
  return {
    campaign_orders_amount: num(campaign?.amount),
    campaign_orders_amount_discounted: num(campaign?.discount),
    campaign_redemptions: periods('c'),
    campaign_customers: periods('cu'),
    customer_campaign_redemptions: periods('cc'),
    redemptions: periods('r'),
    customer_redemptions: periods('rc'),
  }
}

/**
 * One counter write: an increment of a counter row, created on first use, bounded by `guard`, and
 * removing the row's stale period fields (`unset`).
 */
export interface CounterWrite {
  id: string
  by: Record<string, number>
  guard?: Record<string, Guard>
  unset?: string[]
}

/** Which family and period a budget rule name reads, and the field for amounts (`count`: the period's field). */
function ruleTarget(rule: string): { family: Family; period: Period; field: 'count' | 'amount' | 'discount' } | null {
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
 * `before` holds the rows as read when deciding (for a rollback: as read now). A redemption removes
 * the stale period fields it read; a rollback takes the redemption out of the period fields of its
 * date that the row still holds (a field pruned since counts for no decision any more).
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
  const fields = periodFields(input.at, input.timeZone)
  // A rollback leaves alone a period field the row no longer holds.
  const counts = (id: string, p: Period) =>
    sign === 1 || p === 'total' || typeof before.get(id)?.[fields[p]] === 'number'
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
    const w = write(base)
    for (const p of PERIODS) if (counts(base, p)) w.by[fields[p]] = sign
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
      : num(before.get(familyBase('cu', scope) as string)?.count) > 0)
  if (distinct) {
    // A customer's first redemption in the campaign (per period) adds a distinct customer; the guard on
    // their own count keeps two concurrent "first" redemptions from both counting them.
    const cc = familyBase('cc', scope)
    const cu = write(familyBase('cu', scope) as string)
    if (cc === null) cu.by.count = 0
    else {
      for (const p of PERIODS) {
        if (!counts(cc, p)) continue
        const f = fields[p]
        const mine = num(before.get(cc)?.[f]) + pendingOf(cc, f)
        const changes = sign === 1 ? mine === 0 : mine === 1
        cu.by[f] = changes ? sign : 0
        const own = write(cc)
        own.guard = own.guard ?? {}
        const after = mine + sign
        if (changes) narrow(own.guard, f, after, after)
        else narrow(own.guard, f, sign === 1 ? 2 : 1, Number.POSITIVE_INFINITY)
      }
    }
  }
  for (const bound of input.bounds ?? []) {
    const target = ruleTarget(bound.rule)
    if (target === null) continue
    const base = familyBase(target.family, scope)
    if (base === null) continue
    const w = write(base)
    const field = target.field === 'count' ? fields[target.period] : target.field
    if (w.by[field] === undefined) w.by[field] = 0
    w.guard = w.guard ?? {}
    // The decision counted the request's earlier redemptions, counts and sums (`withSiblings` in
    // src/rules/redeemables/decide.ts): its bounds are on the row as this write leaves it.
    narrow(w.guard, field, bound.lo, bound.hi)
  }
  for (const w of writes.values()) {
    if (w.guard && Object.keys(w.guard).length === 0) delete w.guard
    if (sign === 1) {
      const stale = staleFields(before.get(w.id), fields)
      if (stale.length > 0) w.unset = stale
    }
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
