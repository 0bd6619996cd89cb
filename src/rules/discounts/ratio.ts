import { EngineError } from '../../errors'
import { decimal, type RoundingMode } from '../../money'

/**
 * Exact rounding of integer ratios. This is the hot path of every percentage and partial-line base:
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
  const [n, d] = decimal(value).toFraction()
  const num = n?.toNumber() ?? Number.NaN
  const den = d?.toNumber() ?? Number.NaN
  if (!Number.isSafeInteger(num) || !Number.isSafeInteger(den)) {
    throw EngineError.invalid(path, `has more precision than the engine supports: ${value}`)
  }
  return { num, den }
}
