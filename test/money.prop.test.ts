import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { EngineError } from '../src/errors'
import { allocate, assertMoney, mulRatio, percentOf, type RoundingMode, roundToUnit } from '../src/money'

const RUNS = { numRuns: 200 }
const MAX = Number.MAX_SAFE_INTEGER

const total = fc.oneof(fc.integer({ min: 0, max: 10_000 }), fc.maxSafeNat(), fc.maxSafeInteger())
/** Weights up to 1e12, with many zeros and many small ties. */
const weight = fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 10 }), fc.integer({ min: 0, max: 1e12 }))
const weights = fc.array(weight, { maxLength: 12 })
const mode = fc.constantFrom<RoundingMode>('half-up', 'half-even', 'down', 'up')
/** Numbers money must refuse: fractions, NaN, infinities and integers beyond 2^53 - 1. */
const notSafe = fc.oneof(
  fc.double().filter((x) => !Number.isSafeInteger(x)),
  fc.bigInt({ min: 2n ** 53n, max: 2n ** 70n }).map((b) => Number(b) * (b % 2n === 0n ? 1 : -1)),
)

const abs = (x: bigint): bigint => (x < 0n ? -x : x)

/** The exact rounding of n / d (d > 0) by each mode, in integers only: the oracle for percentOf and mulRatio. */
function roundExact(n: bigint, d: bigint, m: RoundingMode): bigint {
  const q = n / d // truncates toward zero
  const r = n % d // has the sign of n
  const away = q + (n < 0n ? -1n : 1n)
  if (r === 0n) return q
  switch (m) {
    case 'down':
      return q
    case 'up':
      return away
    case 'half-up':
      return 2n * abs(r) >= d ? away : q
    case 'half-even':
      if (2n * abs(r) !== d) return 2n * abs(r) > d ? away : q
      return q % 2n === 0n ? q : away
    default: {
      const _never: never = m
      return _never
    }
  }
}

function floorDiv(n: bigint, d: bigint): bigint {
  const q = n / d
  return n % d !== 0n && n < 0n ? q - 1n : q
}

describe('allocate properties', () => {
  it('parts sum to the whole (or are all zero when no weight is positive)', () => {
    fc.assert(
      fc.property(total, weights, (t, ws) => {
        const parts = allocate(t, ws)
        expect(parts).toHaveLength(ws.length)
        const partSum = parts.reduce((a, p) => a + BigInt(p), 0n)
        const weightSum = ws.reduce((a, w) => a + BigInt(w), 0n)
        expect(partSum).toBe(weightSum === 0n ? 0n : BigInt(t))
      }),
      RUNS,
    )
  })

  it('each part is within one unit of its exact share, and zero weights get zero', () => {
    fc.assert(
      fc.property(total, weights, (t, ws) => {
        const parts = allocate(t, ws)
        const s = ws.reduce((a, w) => a + BigInt(w), 0n)
        if (s === 0n) return
        for (const [i, w] of ws.entries()) {
          const part = BigInt(parts[i] ?? Number.NaN)
          if (w === 0) expect(part).toBe(0n)
          // |part − t·w/s| < 1, compared without division: |part·s − t·w| < s
          expect(abs(part * s - BigInt(t) * BigInt(w)) < s).toBe(true)
          // the part has the sign of the total
          expect(t >= 0 ? part >= 0n : part <= 0n).toBe(true)
        }
      }),
      RUNS,
    )
  })

  it('is deterministic and the same for any copy of the weights', () => {
    fc.assert(
      fc.property(total, weights, (t, ws) => {
        expect(allocate(t, [...ws])).toEqual(allocate(t, ws))
      }),
      RUNS,
    )
  })

  it('negating the total negates every part', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), weights, (t, ws) => {
        expect(allocate(-t, ws)).toEqual(allocate(t, ws).map((p) => (p === 0 ? 0 : -p)))
      }),
      RUNS,
    )
  })

  it('rejects a total or a weight that is not a safe integer', () => {
    fc.assert(
      fc.property(notSafe, weights, fc.nat(12), (bad, ws, at) => {
        expect(() => allocate(bad, ws)).toThrow(RangeError)
        const spoiled = [...ws]
        spoiled.splice(Math.min(at, ws.length), 0, bad)
        expect(() => allocate(100, spoiled)).toThrow(RangeError)
      }),
      RUNS,
    )
  })
})

describe('percentOf and mulRatio properties', () => {
  /** A percent from 0 to 100 with two decimals, as the decimal string and as basis points. */
  const percent = fc.integer({ min: 0, max: 10_000 }).map((bp) => ({
    bp: BigInt(bp),
    text: `${Math.trunc(bp / 100)}.${String(bp % 100).padStart(2, '0')}`,
  }))

  it('percentOf is the exact value rounded by the mode, between its floor and ceiling', () => {
    fc.assert(
      fc.property(fc.maxSafeInteger(), percent, mode, (amount, p, m) => {
        const result = BigInt(percentOf(amount, p.text, m))
        const n = BigInt(amount) * p.bp
        const floor = floorDiv(n, 10_000n)
        const ceil = floor + (n % 10_000n === 0n ? 0n : 1n)
        expect(result >= floor && result <= ceil).toBe(true)
        expect(result).toBe(roundExact(n, 10_000n, m))
      }),
      RUNS,
    )
  })

  it('mulRatio is the exact value rounded by the mode', () => {
    fc.assert(
      fc.property(
        fc.maxSafeInteger(),
        fc.integer({ min: 1, max: 1_000_000 }),
        fc.integer({ min: 0, max: 1_000_000 }),
        mode,
        (amount, d, k, m) => {
          const num = Math.min(k, d) // a ratio ≤ 1 keeps the result safe
          const result = BigInt(mulRatio(amount, num, d, m))
          expect(result).toBe(roundExact(BigInt(amount) * BigInt(num), BigInt(d), m))
        },
      ),
      RUNS,
    )
  })

  it('rounding modes are ordered: down ≤ half-even, half-up ≤ up in magnitude', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), percent, (amount, p) => {
        const [down, even, up, ceil] = (['down', 'half-even', 'half-up', 'up'] as const).map((m) =>
          percentOf(amount, p.text, m),
        ) as [number, number, number, number]
        expect(down <= even && even <= up && up <= ceil).toBe(true)
        expect(ceil - down <= 1).toBe(true)
      }),
      RUNS,
    )
  })

  it('rejects amounts that are not safe integers', () => {
    fc.assert(
      fc.property(notSafe, percent, (bad, p) => {
        expect(() => percentOf(bad, p.text)).toThrow(RangeError)
        expect(() => mulRatio(bad, 1, 3)).toThrow(RangeError)
        expect(() => assertMoney(bad)).toThrow(EngineError)
      }),
      RUNS,
    )
  })

  it('roundToUnit never returns a value that is not a safe integer', () => {
    fc.assert(
      fc.property(fc.double({ min: -1e17, max: 1e17, noNaN: true }), mode, (x, m) => {
        let result: number | undefined
        try {
          result = roundToUnit(x, m)
        } catch (e) {
          expect(e).toBeInstanceOf(RangeError)
          expect(Math.abs(x) > MAX - 1).toBe(true)
          return
        }
        expect(Number.isSafeInteger(result)).toBe(true)
        expect(result >= Math.floor(x) && result <= Math.ceil(x)).toBe(true)
      }),
      RUNS,
    )
  })
})
