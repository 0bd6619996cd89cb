/**
 * The condition operators of docs/concepts.md#conditions and the filter aliases seen in examples. Each decides
 * one comparison between an actual value and the `conditions` array (values are always arrays).
 *
 * Decisions the interface leaves open (docs/behaviour.md#condition-operators):
 * - Scalars: `$is` passes when the actual equals any listed value, `$is_not` when it equals none.
 *   Sets (segments, tiers, the products in an order): `$is` needs every listed value, `$in` any,
 *   `$is_not` / `$not_in` none.
 * - Numbers and numeric strings compare numerically; ISO date strings compare as instants.
 * - `$timeframe` compares local calendar dates `[from, to]` inclusive in the engine's zone;
 *   `$timeframe_absolute` compares instants. The "ago" / "future" operators count whole days.
 */

import { parseInstant } from '../zoned-calendar'
import { inDailyWindow, localDayNumber, localMinuteOfDay, localParts, parseClockTime } from '../zoned-time'

export const OPERATORS = [
  '$is',
  '$is_not',
  '$in',
  '$not_in',
  '$less_than',
  '$less_than_or_equal',
  '$more_than',
  '$more_than_or_equal',
  '$starts_with',
  '$ends_with',
  '$contains',
  '$not_contain',
  '$timeframe',
  '$timeframe_absolute',
  '$timeframe_daily_hours',
  '$dow',
  '$count',
  '$count_more',
  '$count_less',
  '$not_differ',
  '$not_intersect',
  '$from',
  '$after',
  '$before',
  '$more_than_ago',
  '$less_than_ago',
  '$is_days_ago',
  '$more_than_future',
  '$less_than_future',
  '$is_days_in_future',
  '$has_value',
  '$is_unknown',
] as const

export type Operator = (typeof OPERATORS)[number]

const ALIASES = {
  $greater_than_or_equal: '$more_than_or_equal',
  $more_than_equal: '$more_than_or_equal',
  $greater_than: '$more_than',
  $less_than_equal: '$less_than_or_equal',
  $not_contains: '$not_contain',
} as const satisfies Record<string, Operator>

export type OperatorAlias = keyof typeof ALIASES

/** Every name a condition may use: the operators and their aliases (what request schemas accept). */
export const OPERATOR_NAMES: readonly (Operator | OperatorAlias)[] = [
  ...OPERATORS,
  ...(Object.keys(ALIASES) as OperatorAlias[]),
]

/** The canonical operator for a name or alias; null when unknown. */
export function canonicalOperator(name: string): Operator | null {
  if ((OPERATORS as readonly string[]).includes(name)) return name as Operator
  return Object.hasOwn(ALIASES, name) ? ALIASES[name as OperatorAlias] : null
}

export interface OperatorEnv {
  now: Date
  timeZone: string
}

const MS_PER_DAY = 86_400_000
const NUMERIC = /^[-+]?\d+(?:\.\d+)?$/
const ISO_DATE = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$/

function toNumber(v: unknown): number | null {
  if (typeof v === 'number' && Number.isFinite(v)) return v
  if (typeof v === 'string' && NUMERIC.test(v.trim())) return Number(v)
  return null
}

function toInstant(v: unknown): number | null {
  if (v instanceof Date) return Number.isNaN(v.getTime()) ? null : v.getTime()
  if (typeof v === 'string' && ISO_DATE.test(v.trim())) {
    const ms = parseInstant(v.trim())
    return Number.isNaN(ms) ? null : ms
  }
  return null
}

/** An object reference such as `{id, object}` is identified by its id (or source_id). */
function identity(v: unknown): unknown {
  if (v !== null && typeof v === 'object' && !Array.isArray(v) && !(v instanceof Date)) {
    const o = v as Record<string, unknown>
    if (typeof o.id === 'string') return o.id
    if (typeof o.source_id === 'string') return o.source_id
  }
  return v
}

/** Loose equality across the encodings metadata uses: 10 = "10", true = "true", same instant. */
export function valuesEqual(a: unknown, b: unknown): boolean {
  const x = identity(a)
  const y = identity(b)
  if (x === y) return true
  const nx = toNumber(x)
  const ny = toNumber(y)
  if (nx !== null && ny !== null) return nx === ny
  const dx = toInstant(x)
  const dy = toInstant(y)
  if (dx !== null && dy !== null) return dx === dy
  if (typeof x === 'boolean' || typeof y === 'boolean') return String(x) === String(y)
  return false
}

/** Orders two values: numbers, then instants, then strings; null when not comparable. */
function compare(a: unknown, b: unknown): number | null {
  const na = toNumber(a)
  const nb = toNumber(b)
  if (na !== null && nb !== null) return na - nb
  const da = toInstant(a)
  const db = toInstant(b)
  if (da !== null && db !== null) return da - db
  if (typeof a === 'string' && typeof b === 'string') return a < b ? -1 : a > b ? 1 : 0
  return null
}

function isEmpty(v: unknown): boolean {
  return v === undefined || v === null || v === '' || (Array.isArray(v) && v.length === 0)
}

function includesValue(list: readonly unknown[], v: unknown): boolean {
  return list.some((x) => valuesEqual(x, v))
}

function asList(v: unknown): readonly unknown[] | null {
  return Array.isArray(v) ? v : null
}

function cmp(actual: unknown, expected: readonly unknown[], test: (c: number) => boolean): boolean {
  if (expected.length === 0) return false
  const c = compare(actual, expected[0])
  return c !== null && test(c)
}

function daysFromToday(actual: unknown, env: OperatorEnv): number | null {
  const ms = toInstant(actual)
  if (ms === null) return null
  return localDayNumber(ms, env.timeZone) - localDayNumber(env.now, env.timeZone)
}

/**
 * Whether `actual` satisfies `operator` with `expected`. An actual that is missing (undefined or
 * null) satisfies only `$is_unknown`, `$is_not`, `$not_in`, `$not_contain`: "is not X" holds for
 * an unknown value.
 */
export function applyOperator(
  operator: Operator,
  actual: unknown,
  expected: readonly unknown[],
  env: OperatorEnv,
): boolean {
  const list = asList(actual)
  const missing = actual === undefined || actual === null
  switch (operator) {
    case '$has_value':
      return !isEmpty(actual)
    case '$is_unknown':
      return isEmpty(actual)
    case '$is':
      if (list !== null) return expected.length > 0 && expected.every((e) => includesValue(list, e))
      return !missing && includesValue(expected, actual)
    case '$is_not':
      if (list !== null) return !expected.some((e) => includesValue(list, e))
      return missing || !includesValue(expected, actual)
    case '$in':
      if (list !== null) return expected.some((e) => includesValue(list, e))
      return !missing && includesValue(expected, actual)
    case '$not_in':
      if (list !== null) return !expected.some((e) => includesValue(list, e))
      return missing || !includesValue(expected, actual)
    case '$less_than':
      return cmp(actual, expected, (c) => c < 0)
    case '$less_than_or_equal':
      return cmp(actual, expected, (c) => c <= 0)
    case '$more_than':
      return cmp(actual, expected, (c) => c > 0)
    case '$more_than_or_equal':
      return cmp(actual, expected, (c) => c >= 0)
    case '$starts_with':
      return typeof actual === 'string' && expected.some((e) => typeof e === 'string' && actual.startsWith(e))
    case '$ends_with':
      return typeof actual === 'string' && expected.some((e) => typeof e === 'string' && actual.endsWith(e))
    case '$contains':
      if (list !== null) return expected.length > 0 && expected.every((e) => includesValue(list, e))
      return typeof actual === 'string' && expected.some((e) => typeof e === 'string' && actual.includes(e))
    case '$not_contain':
      if (list !== null) return !expected.some((e) => includesValue(list, e))
      return (
        missing || (typeof actual === 'string' && !expected.some((e) => typeof e === 'string' && actual.includes(e)))
      )
    case '$count':
      return list !== null && cmp(list.length, expected, (c) => c === 0)
    case '$count_more':
      return list !== null && cmp(list.length, expected, (c) => c > 0)
    case '$count_less':
      return list !== null && cmp(list.length, expected, (c) => c < 0)
    case '$not_differ':
      if (list === null) return false
      return list.every((a) => includesValue(expected, a)) && expected.every((e) => includesValue(list, e))
    case '$not_intersect':
      return list === null ? missing || !includesValue(expected, actual) : !expected.some((e) => includesValue(list, e))
    case '$timeframe': {
      const day = toInstant(actual)
      const from = toInstant(expected[0])
      const to = toInstant(expected[1])
      if (day === null || from === null || to === null) return false
      const d = localDayNumber(day, env.timeZone)
      return d >= localDayNumber(from, env.timeZone) && d <= localDayNumber(to, env.timeZone)
    }
    case '$timeframe_absolute': {
      const t = toInstant(actual)
      const from = toInstant(expected[0])
      const to = toInstant(expected[1])
      return t !== null && from !== null && to !== null && t >= from && t <= to
    }
    case '$timeframe_daily_hours': {
      const t = toInstant(actual)
      const start = typeof expected[0] === 'string' ? parseClockTime(expected[0]) : null
      const end = typeof expected[1] === 'string' ? parseClockTime(expected[1]) : null
      if (t === null || start === null || end === null) return false
      return inDailyWindow(localMinuteOfDay(t, env.timeZone), localParts(t, env.timeZone).weekday, start, end, null)
    }
    case '$dow': {
      const t = toInstant(actual)
      if (t === null) return false
      const weekday = localParts(t, env.timeZone).weekday
      return expected.some((e) => toNumber(e) === weekday)
    }
    case '$from':
      return cmp(actual, expected, (c) => c >= 0)
    case '$after':
      return cmp(actual, expected, (c) => c > 0)
    case '$before':
      return cmp(actual, expected, (c) => c < 0)
    case '$more_than_ago': {
      const t = toInstant(actual)
      const n = toNumber(expected[0])
      return t !== null && n !== null && t < env.now.getTime() - n * MS_PER_DAY
    }
    case '$less_than_ago': {
      const t = toInstant(actual)
      const n = toNumber(expected[0])
      return t !== null && n !== null && t <= env.now.getTime() && t > env.now.getTime() - n * MS_PER_DAY
    }
    case '$is_days_ago': {
      const d = daysFromToday(actual, env)
      const n = toNumber(expected[0])
      return d !== null && n !== null && d === -n
    }
    case '$more_than_future': {
      const t = toInstant(actual)
      const n = toNumber(expected[0])
      return t !== null && n !== null && t > env.now.getTime() + n * MS_PER_DAY
    }
    case '$less_than_future': {
      const t = toInstant(actual)
      const n = toNumber(expected[0])
      return t !== null && n !== null && t >= env.now.getTime() && t < env.now.getTime() + n * MS_PER_DAY
    }
    case '$is_days_in_future': {
      const d = daysFromToday(actual, env)
      const n = toNumber(expected[0])
      return d !== null && n !== null && d === n
    }
    default: {
      const _never: never = operator
      return _never
    }
  }
}
