import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { applyJsonDiff, jsonDiff } from '../../src/rules/json-diff'

/** Through JSON, as a database stores it. */
const json = <T>(x: T): T => JSON.parse(JSON.stringify(x)) as T

/** A value and a variant of it: some of its leaves changed, keys dropped or added, arrays cut or grown. */
const pair = fc
  .tuple(fc.jsonValue({ maxDepth: 4 }), fc.jsonValue({ maxDepth: 3 }), fc.integer({ min: 0, max: 1_000_000 }))
  .map(([base, other, seed]) => [base, mutate(base, other, seed)] as const)

function mutate(value: unknown, other: unknown, seed: number): unknown {
  const pick = seed % 7
  const next = Math.floor(seed / 7)
  if (Array.isArray(value)) {
    if (pick === 0) return [...value, other]
    if (pick === 1) return value.slice(0, Math.max(0, value.length - 1))
    return value.map((v, i) => (i === next % Math.max(1, value.length) ? mutate(v, other, next) : v))
  }
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value)
    if (pick === 0) return { ...value, [`k${next % 5}`]: other }
    if (pick === 1 && entries.length > 0) return Object.fromEntries(entries.slice(1))
    return Object.fromEntries(entries.map(([k, v], i) => [k, i === next % entries.length ? mutate(v, other, next) : v]))
  }
  return pick < 4 ? other : value
}

// 1.3 s on a 2-core machine at load 18: a safety limit, no timing is asserted.
describe('jsonDiff / applyJsonDiff', { timeout: 30_000 }, () => {
  it('the diff applied to its base gives the target back, also after both pass through JSON', () => {
    fc.assert(
      fc.property(pair, ([base, target]) => {
        const diff = jsonDiff(base, target)
        expect(json(applyJsonDiff(base, diff))).toEqual(json(target))
        expect(json(applyJsonDiff(json(base), diff === undefined ? undefined : json(diff)))).toEqual(json(target))
      }),
      { numRuns: 2000 },
    )
  })

  it('no diff between equal values; a value unrelated to its base is the value itself', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (x) => {
        expect(jsonDiff(x, json(x))).toBeUndefined()
      }),
    )
    expect(jsonDiff({ a: 1 }, [1])).toEqual({ v: [1] })
    expect(jsonDiff(1, 2)).toEqual({ v: 2 })
  })

  it('names only what changed, and shares the rest with the base', () => {
    const items = Array.from({ length: 50 }, (_, i) => ({ source_id: `p${i}`, price: 100 + i, quantity: 1 }))
    const base = { id: 'ord_1', amount: 1000, items, metadata: { a: 1 } }
    const target = {
      amount: 1000,
      items: items.map((it, i) => (i === 7 ? { ...it, price: 1 } : it)),
      metadata: { a: 1 },
    }
    const diff = jsonDiff(base, target)
    expect(diff).toEqual({ o: { items: { a: { 7: { o: { price: { v: 1 } } } }, n: 50 } }, x: ['id'] })
    const applied = applyJsonDiff(base, diff) as typeof base
    expect(applied).toEqual(target)
    expect(applied.metadata).toBe(base.metadata)
    expect(applied.items[8]).toBe(base.items[8])
  })

  it('keeps keys such as __proto__ and constructor as plain data', () => {
    const base = JSON.parse('{"metadata":{"constructor":1,"__proto__":{"x":1}}}')
    const target = JSON.parse('{"metadata":{"__proto__":{"x":2}}}')
    const applied = applyJsonDiff(base, json(jsonDiff(base, target))) as { metadata: object }
    expect(JSON.stringify(applied)).toBe(JSON.stringify(target))
    expect(Object.getPrototypeOf(applied.metadata)).toBe(Object.prototype)
  })

  it('treats undefined properties as absent, as JSON does', () => {
    expect(jsonDiff({ a: 1, b: undefined }, { a: 1 })).toBeUndefined()
    expect(applyJsonDiff({ a: 1 }, jsonDiff({ a: 1 }, { a: 1, b: undefined }))).toEqual({ a: 1 })
  })
})
