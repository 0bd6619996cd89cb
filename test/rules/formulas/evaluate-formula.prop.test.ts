import { Decimal } from 'decimal.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateFormula } from '../../../src/rules/formulas'

const D = Decimal.clone({ precision: 60 })

/** A decimal literal with up to 4 places, as text and as the exact decimal.js value. */
const literal = fc
  .tuple(fc.integer({ min: 0, max: 1_000_000 }), fc.integer({ min: 0, max: 4 }))
  .map(([units, places]) => new D(units).dividedBy(new D(10).pow(places)).toFixed(places))

const op = fc.constantFrom('+', '-', 'x', '×', '*', '÷', '/')

function expected(a: string, o: string, b: string, c: string): Decimal {
  const x = new D(a)
  const y = new D(b)
  const z = new D(c)
  switch (o) {
    case '+':
      return x.plus(y).times(z)
    case '-':
      return x.minus(y).times(z)
    case '÷':
    case '/':
      return x.dividedBy(y).times(z)
    default:
      return x.times(y).times(z)
  }
}

describe('formula arithmetic', () => {
  it('is deterministic and matches decimal.js exactly (no float artefacts)', () => {
    fc.assert(
      fc.property(literal, op, literal, literal, (a, o, b, c) => {
        fc.pre(!((o === '÷' || o === '/') && new D(b).isZero()))
        const source = `(${a} ${o} CUSTOMER_METADATA("b")) x ${c}`
        const context = { customer: { metadata: { b: Number(b) } } }
        const first = evaluateFormula(source, context)
        const second = evaluateFormula(source, context)
        expect(first.ok && second.ok).toBe(true)
        if (!first.ok || !second.ok) return
        expect(first.value.equals(second.value)).toBe(true)
        expect(first.value.equals(expected(a, o, b, c))).toBe(true)
      }),
      { numRuns: 200 },
    )
  })

  it('ROUND to p places equals decimal.js half-up rounding', () => {
    fc.assert(
      fc.property(literal, fc.integer({ min: -3, max: 4 }), (a, p) => {
        const out = evaluateFormula(`ROUND(${a};${p})`, {})
        const unit = new D(10).pow(-p)
        const want = new D(a).dividedBy(unit).toDecimalPlaces(0, Decimal.ROUND_HALF_UP).times(unit)
        expect(out.ok && out.value.equals(want)).toBe(true)
      }),
      { numRuns: 200 },
    )
  })
})
