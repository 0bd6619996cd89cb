import { Decimal } from 'decimal.js'
import { EngineError } from './errors'

/**
 * Money is an integer count of minor units (cents). Floats never carry money: a percentage or a
 * ratio is computed exactly — with decimal.js, or on the hot path as an exact integer fraction
 * (`toFraction` reads the rate as the decimal it prints as, `mulDivRound` keeps the remainder) that
 * a property test proves equal to decimal.js — and rounded once, by one of the modes below. A split
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

/**
 * Exact rounding of integer ratios (the discount calculation's hot path). This is the hot path of every percentage and partial-line base:
 * `a × b ÷ c` over non-negative safe integers, rounded once by the engine's mode. Plain number
 * arithmetic is exact while the product stays a safe integer (the remainder is computed, never a
 * float quotient trusted); beyond that the same rule runs on BigInt. Same results as decimal.js,
 * without its allocation per call.
 */

const BIG_LIMIT = 2 ** 52

/** `n ÷ d` rounded by `mode`; `n ≥ 0`, `d > 0`, both safe integers. */
export function divRound(n: number, d: number, mode: RoundingMode): number {
  if (n > BIG_LIMIT) return Number(divRoundBig(BigInt(n), BigInt(d), mode))
  let q = Math.floor(n / d)
  let r = n - q * d
  // The float quotient can be one off near integer boundaries; the remainder corrects it.
  if (r < 0) {
    q -= 1
    r += d
  } else if (r >= d) {
    q += 1
    r -= d
  }
  if (r === 0) return q
  switch (mode) {
    case 'down':
      return q
    case 'up':
      return q + 1
    case 'half-up':
      return 2 * r >= d ? q + 1 : q
    case 'half-even':
      return 2 * r > d || (2 * r === d && q % 2 === 1) ? q + 1 : q
    default: {
      const _never: never = mode
      return _never
    }
  }
}

export function divRoundBig(n: bigint, d: bigint, mode: RoundingMode): bigint {
  const q = n / d
  const r = n % d
  if (r === 0n) return q
  switch (mode) {
    case 'down':
      return q
    case 'up':
      return q + 1n
    case 'half-up':
      return 2n * r >= d ? q + 1n : q
    case 'half-even':
      return 2n * r > d || (2n * r === d && q % 2n === 1n) ? q + 1n : q
    default: {
      const _never: never = mode
      return _never
    }
  }
}

/** `a × b ÷ c` rounded once; non-negative safe integers, `c > 0`. */
export function mulDivRound(a: number, b: number, c: number, mode: RoundingMode): number {
  const p = a * b
  if (Number.isSafeInteger(p)) return divRound(p, c, mode)
  return Number(divRoundBig(BigInt(a) * BigInt(b), BigInt(c), mode))
}

/** `a × b × c ÷ (d × e)` rounded once (a partial-line percentage: base × units × rate ÷ quantity). */
export function mulMulDivRound(a: number, b: number, c: number, d: number, e: number, mode: RoundingMode): number {
  const num = a * b * c
  const den = d * e
  if (Number.isSafeInteger(num) && Number.isSafeInteger(den)) return divRound(num, den, mode)
  return Number(divRoundBig(BigInt(a) * BigInt(b) * BigInt(c), BigInt(d) * BigInt(e), mode))
}

const PLAIN_DECIMAL = /^(\d+)\.(\d+)$/

/** A non-negative rate as an exact fraction `num ÷ den` of safe integers. */
export interface Fraction {
  num: number
  den: number
}

/**
 * `value` (a plain JS number such as a `percent_off` of 12.5) as the exact decimal it prints as,
 * which is what decimal.js would read. Once per step; decimal.js only for exponent forms.
 */
export function toFraction(value: number, path: string): Fraction {
  if (!Number.isFinite(value) || value < 0)
    throw EngineError.invalid(path, `must be a finite number ≥ 0, got ${String(value)}`)
  if (Number.isSafeInteger(value)) return { num: value, den: 1 }
  // The common case, a plain decimal such as 12.5, read off its digits; exponent forms go to decimal.js.
  const match = PLAIN_DECIMAL.exec(String(value))
  if (match !== null) {
    const digits = match[2] as string
    const num = Number((match[1] as string) + digits)
    const den = 10 ** digits.length
    if (Number.isSafeInteger(num) && Number.isSafeInteger(den)) return { num, den }
  }
  const [n, d] = new D(value).toFraction()
  const num = n?.toNumber() ?? Number.NaN
  const den = d?.toNumber() ?? Number.NaN
  if (!Number.isSafeInteger(num) || !Number.isSafeInteger(den)) {
    throw EngineError.invalid(path, `has more precision than the engine supports: ${value}`)
  }
  return { num, den }
}
