import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { evaluateFormula, type FormulaContext } from '../../../src/rules/formulas'

function value(source: string, context: FormulaContext): number {
  const out = evaluateFormula(source, context)
  if (!out.ok) throw new Error(`${source}: ${out.reason.code} ${out.reason.message}`)
  return out.value.toNumber() + 0 // + 0: -0 and 0 are the same count
}

const pad = (n: number, w = 2) => String(n).padStart(w, '0')
const day = fc
  .record({
    y: fc.integer({ min: 1900, max: 2100 }),
    m: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 28 }),
  })
  .map(({ y, m, d }) => ({ y, m, d, text: `${y}-${pad(m)}-${pad(d)}` }))
const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) }).map((ms) => new Date(ms))
const zone = fc.constantFrom('UTC', 'Europe/Warsaw', 'America/New_York', 'Asia/Kolkata', 'Pacific/Auckland')

describe('date operands', () => {
  it('DATE("y-m-d") gives back its year, month and day; SINCE and UNTIL are opposite; dates order like days', () => {
    fc.assert(
      fc.property(day, day, instant, zone, (a, b, now, timeZone) => {
        const ctx: FormulaContext = { now, timeZone }
        const A = `DATE("${a.text}")`
        const B = `DATE("${b.text}")`
        expect(value(`YEAR(${A}) x 10000 + MONTH(${A}) x 100 + DAY_OF_MONTH(${A})`, ctx)).toBe(
          a.y * 10000 + a.m * 100 + a.d,
        )
        expect(value(`DAYS_UNTIL(${A}) + DAYS_SINCE(${A})`, ctx)).toBe(0)
        expect(value(`MONTHS_UNTIL(${A}) + MONTHS_SINCE(${A})`, ctx)).toBe(0)
        const days = Math.round((Date.UTC(b.y, b.m - 1, b.d) - Date.UTC(a.y, a.m - 1, a.d)) / 86_400_000)
        expect(value(`DAYS_SINCE(${A}; ${B})`, ctx)).toBe(days)
        expect(value(`IF(${A} < ${B}; 1; 0)`, ctx)).toBe(days > 0 ? 1 : 0)
        expect(value(`IF(${A} IS_AFTER ${B}; 1; 0)`, ctx)).toBe(days < 0 ? 1 : 0)
        // Whole months, cut toward zero (days ≤ 28: no month-end clamping).
        const months =
          days >= 0
            ? (b.y - a.y) * 12 + (b.m - a.m) - (b.d < a.d ? 1 : 0)
            : 0 - ((a.y - b.y) * 12 + (a.m - b.m) - (a.d < b.d ? 1 : 0))
        expect(value(`MONTHS_SINCE(${A}; ${B})`, ctx)).toBe(months)
        expect(value(`YEARS_SINCE(${A}; ${B})`, ctx)).toBe(Math.trunc(months / 12) + 0)
      }),
      { numRuns: 200 },
    )
  })

  it('TODAY is the local calendar day of NOW, and DATE_TIME of TODAY is not after NOW', () => {
    fc.assert(
      fc.property(instant, zone, (now, timeZone) => {
        const ctx: FormulaContext = { now, timeZone }
        expect(value('IF(TODAY = DATE(NOW) AND NOW DATE_IS TODAY; 1; 0)', ctx)).toBe(1)
        expect(value('IF(DATE_TIME(TODAY) > NOW; 1; 0)', ctx)).toBe(0)
        expect(value('DAYS_SINCE(DATE_TIME(TODAY))', ctx)).toBe(0)
      }),
      { numRuns: 200 },
    )
  })
})
