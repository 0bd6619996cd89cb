import { Decimal } from 'decimal.js'
import { EngineError } from './errors'

/**
 * Money is an integer count of minor units (cents). Floats never carry money: a percentage or a
 * non-integer ratio goes through decimal.js and is rounded once, by one of the modes below; a split
 * uses exact integer arithmetic (BigInt) so the parts always sum to the whole.
 */
export type RoundingMode = 'half-up' | 'half-even' | 'down' | 'up'

export const ROUNDING_MODES: readonly RoundingMode[] = ['half-up', 'half-even', 'down', 'up']

// Enough significant digits for any product of two safe integers; the library default (20) is not.
const D = Decimal.clone({ precision: 60, rounding: Decimal.ROUND_HALF_UP })

const DECIMAL_MODE: Record<RoundingMode, Decimal.Rounding> = {
  'half-up': Decimal.ROUND_HALF_UP,
  'half-even': Decimal.ROUND_HALF_EVEN,
  down: Decimal.ROUND_DOWN,
  up: Decimal.ROUND_UP,
}

export type Numeric = number | string | Decimal

/** True when `value` is a safe integer ≥ 0: the only shape money takes. */
export function isMoney(value: unknown): value is number {
  return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0
}

/** Throws a 400 naming `path` unless `value` is a non-negative safe integer. */
export function assertMoney(value: unknown, path = 'amount'): number {
  if (!isMoney(value)) {
    throw EngineError.invalid(path, `must be a non-negative safe integer amount in minor units, got ${String(value)}`)
  }
  return value
}

/**
 * Rounds a decimal value to an integer with the given mode. Throws a RangeError when the result is
 * not a safe integer (NaN, infinite, or beyond 2^53 - 1), where a number could no longer carry it exactly.
 */
export function roundToUnit(value: Numeric, mode: RoundingMode = 'half-up'): number {
  const rounded = new D(value).toDecimalPlaces(0, DECIMAL_MODE[mode]).toNumber()
  if (!Number.isSafeInteger(rounded))
    throw new RangeError(`roundToUnit: ${String(value)} does not round to a safe integer`)
  // -0 would leak into JSON as 0 anyway, but keeps Object.is checks honest.
  return rounded === 0 ? 0 : rounded
}

/** `percent`% of `amount`, rounded once. `percent` is a plain percent number (10 means 10%). */
export function percentOf(amount: number, percent: Numeric, mode: RoundingMode = 'half-up'): number {
  assertSafeInteger(amount, 'amount', 'percentOf')
  return roundToUnit(new D(amount).times(percent).dividedBy(100), mode)
}

/** `amount × numerator ÷ denominator`, rounded once. */
export function mulRatio(
  amount: number,
  numerator: Numeric,
  denominator: Numeric,
  mode: RoundingMode = 'half-up',
): number {
  assertSafeInteger(amount, 'amount', 'mulRatio')
  if (new D(denominator).isZero()) throw new RangeError('mulRatio: denominator is zero')
  return roundToUnit(new D(amount).times(numerator).dividedBy(denominator), mode)
}

/** `amount × factor`, rounded once (factor may be fractional, e.g. a points exchange rate). */
export function multiply(amount: Numeric, factor: Numeric, mode: RoundingMode = 'half-up'): number {
  return roundToUnit(new D(amount).times(factor), mode)
}

/** Exact decimal arithmetic for callers that combine several ratios before rounding once. */
export function decimal(value: Numeric): Decimal {
  return new D(value)
}

/**
 * Splits `total` over `weights` by the largest-remainder method: each part is the floor of its exact
 * share, and the units left over go to the largest remainders, ties to the earlier index. The parts
 * sum to `total`, each is within one unit of its exact share, and a zero weight gets zero.
 * When every weight is zero nothing can be shared: all parts are zero and the caller must decide.
 */
export function allocate(total: number, weights: readonly number[]): number[] {
  assertSafeInteger(total, 'total')
  const sign = total < 0 ? -1n : 1n
  const whole = BigInt(total) * sign
  let sum = 0n
  for (const [i, w] of weights.entries()) {
    assertSafeInteger(w, `weights[${i}]`)
    if (w < 0) throw new RangeError(`allocate: weights[${i}] is negative`)
    sum += BigInt(w)
  }
  const parts: bigint[] = new Array(weights.length).fill(0n)
  if (sum === 0n || whole === 0n) return parts.map(() => 0)

  const remainders: { index: number; remainder: bigint }[] = []
  let given = 0n
  for (const [i, w] of weights.entries()) {
    const exact = whole * BigInt(w)
    const part = exact / sum
    parts[i] = part
    given += part
    if (w > 0) remainders.push({ index: i, remainder: exact % sum })
  }
  // Stable sort keeps the earlier line first among equal remainders.
  remainders.sort((a, b) => (a.remainder === b.remainder ? 0 : a.remainder > b.remainder ? -1 : 1))
  let left = whole - given
  for (const { index } of remainders) {
    if (left === 0n) break
    parts[index] = (parts[index] ?? 0n) + 1n
    left -= 1n
  }
  return parts.map((p) => Number(p * sign))
}

/** Splits `total` over lines in proportion to their quantities (the same largest-remainder rule). */
export function allocateByQuantity(total: number, quantities: readonly number[]): number[] {
  return allocate(total, quantities)
}

/** Sum of integers, checked to stay safe. */
export function sum(values: Iterable<number>): number {
  let total = 0
  for (const v of values) total += v
  if (!Number.isSafeInteger(total)) throw new RangeError('sum: result is not a safe integer')
  return total
}

function assertSafeInteger(value: number, name: string, fn = 'allocate'): void {
  if (!Number.isSafeInteger(value)) throw new RangeError(`${fn}: ${name} must be a safe integer, got ${value}`)
}
