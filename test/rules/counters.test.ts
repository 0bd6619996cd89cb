import { describe, expect, it } from 'vitest'
import { counterIds, counterWrites, evalCounters, periodFields, staleFields } from '../../src/rules/counters'
import type { Counter } from '../../src/storage/ports'

const at = new Date('2026-11-26T12:00:00Z')
const once = { count: 1, 'd:2026-11-26': 1, 'w:2026-11-23': 1, 'm:2026-11': 1 }

describe('counterIds', () => {
  it('a code in a campaign, for a known customer: one row per family', () => {
    expect(counterIds({ redeemableId: 'v1', campaignId: 'c1', customerId: 'k1' })).toEqual([
      'r:v1',
      'rc:v1:k1',
      'c:c1',
      'cc:c1:k1',
      'cu:c1',
    ])
  })

  it('a standalone code is its own campaign: each row once', () => {
    const ids = counterIds({ redeemableId: 'v1', campaignId: null, customerId: 'k1' })
    expect(ids).toEqual(['r:v1', 'rc:v1:k1', 'cu:v1'])
  })

  it('no customer: no customer rows', () => {
    expect(counterIds({ redeemableId: 'v1', campaignId: null, customerId: null })).toEqual(['r:v1', 'cu:v1'])
  })
})

describe('period fields', () => {
  it('the day, the week from Monday and the month in the time zone, and the previous ones kept', () => {
    const f = periodFields(at, 'UTC')
    expect([f.total, f.daily, f.weekly, f.monthly]).toEqual(['count', 'd:2026-11-26', 'w:2026-11-23', 'm:2026-11'])
    expect(f.keep).toEqual({ d: '2026-11-25', w: '2026-11-16', m: '2026-10' })
    // Just after midnight in Auckland it is already the 27th; a January's previous month is December.
    expect(periodFields(new Date('2026-11-26T12:30:00Z'), 'Pacific/Auckland').daily).toBe('d:2026-11-27')
    expect(periodFields(new Date('2026-01-01T12:00:00Z'), 'UTC').keep.m).toBe('2025-12')
  })

  it('evalCounters reads the total and the current period fields of each row (absent ones count 0)', () => {
    const scope = { redeemableId: 'v1', campaignId: null, customerId: 'k1' }
    const row = (id: string, n: number): Counter => ({
      id,
      count: n,
      'd:2026-11-26': n + 1,
      'w:2026-11-23': n + 2,
      'm:2026-11': n + 3,
      'd:2026-11-25': 100,
    })
    const rows = new Map([row('r:v1', 1), row('rc:v1:k1', 5), row('cu:v1', 9)].map((r) => [r.id, r]))
    const counters = evalCounters(scope, rows, at, 'UTC')
    expect(counters.redemptions).toEqual({ total: 1, daily: 2, weekly: 3, monthly: 4 })
    expect(counters.campaign_redemptions).toEqual(counters.redemptions)
    expect(counters.customer_redemptions).toEqual({ total: 5, daily: 6, weekly: 7, monthly: 8 })
    expect(counters.campaign_customers).toEqual({ total: 9, daily: 10, weekly: 11, monthly: 12 })
    // The next day, yesterday's field counts for nothing.
    expect(evalCounters(scope, rows, new Date('2026-11-27T12:00:00Z'), 'UTC').redemptions).toEqual({
      total: 1,
      daily: 0,
      weekly: 3,
      monthly: 4,
    })
    expect(evalCounters(scope, new Map(), at, 'UTC').redemptions).toEqual({ total: 0, daily: 0, weekly: 0, monthly: 0 })
  })

  it('stale fields: older than the previous period of their kind; the totals and sums are never stale', () => {
    const row: Counter = {
      id: 'r:v1',
      count: 9,
      amount: 100,
      discount: 10,
      'd:2026-11-26': 1,
      'd:2026-11-25': 1,
      'd:2026-11-24': 1,
      'w:2026-11-23': 1,
      'w:2026-11-16': 1,
      'w:2026-11-09': 1,
      'm:2026-11': 1,
      'm:2026-10': 1,
      'm:2026-09': 1,
    }
    expect(staleFields(row, periodFields(at, 'UTC')).sort()).toEqual(['d:2026-11-24', 'm:2026-09', 'w:2026-11-09'])
    expect(staleFields(undefined, periodFields(at, 'UTC'))).toEqual([])
  })
})

describe('counterWrites', () => {
  const scope = { redeemableId: 'v1', campaignId: 'c1', customerId: 'k1' }
  const base = { scope, at, timeZone: 'UTC', orderAmount: 500, discount: 50 }

  it("a campaign code's redemption: five rows, each its total and current period fields", () => {
    const writes = counterWrites({ ...base, before: new Map() })
    expect(writes.map((w) => w.id)).toEqual(['r:v1', 'rc:v1:k1', 'c:c1', 'cc:c1:k1', 'cu:c1'])
    for (const w of writes.filter((x) => x.id !== 'c:c1')) expect(w.by).toEqual(once)
    expect(writes.find((w) => w.id === 'c:c1')?.by).toEqual({
      count: 1,
      'd:2026-11-26': 1,
      'w:2026-11-23': 1,
      'm:2026-11': 1,
      amount: 500,
      discount: 50,
    })
    // The customer's first redemption in the campaign: a distinct customer in every period, guarded at 1.
    expect(writes.find((w) => w.id === 'cu:c1')?.by).toEqual({
      count: 1,
      'd:2026-11-26': 1,
      'w:2026-11-23': 1,
      'm:2026-11': 1,
    })
    expect(writes.find((w) => w.id === 'cc:c1:k1')?.guard).toEqual({
      count: { min: 1, max: 1 },
      'd:2026-11-26': { min: 1, max: 1 },
      'w:2026-11-23': { min: 1, max: 1 },
      'm:2026-11': { min: 1, max: 1 },
    })
  })

  it('a daily budget guards the row of the redeemable on its day field', () => {
    const writes = counterWrites({
      ...base,
      before: new Map(),
      bounds: [{ rule: 'redemption.count.daily', lo: 0, hi: 3 }],
    })
    expect(writes.find((w) => w.id === 'r:v1')?.guard).toEqual({ 'd:2026-11-26': { min: 0, max: 3 } })
  })

  it('removes the stale period fields of the rows it read, and only on redemptions', () => {
    const old: Counter = { id: 'r:v1', count: 3, 'd:2026-11-20': 2, 'd:2026-11-25': 1, 'm:2026-09': 1, 'm:2026-10': 2 }
    const writes = counterWrites({ ...base, before: new Map([[old.id, old]]) })
    expect(writes.find((w) => w.id === 'r:v1')?.unset).toEqual(['d:2026-11-20', 'm:2026-09'])
    expect(writes.find((w) => w.id === 'rc:v1:k1')?.unset).toBeUndefined()
    const back = counterWrites({ ...base, before: new Map([[old.id, old]]), sign: -1 })
    expect(back.every((w) => w.unset === undefined)).toBe(true)
  })

  it('a rollback takes the redemption out of the period fields of its date that the rows still hold', () => {
    const rows: Counter[] = [
      // The day's field pruned since (the row was written weeks later); the month's still there.
      { id: 'r:v1', count: 4, 'm:2026-11': 2, 'w:2026-11-23': 1 },
      { id: 'rc:v1:k1', count: 1, 'd:2026-11-26': 1, 'w:2026-11-23': 1, 'm:2026-11': 1 },
      { id: 'c:c1', count: 4, amount: 2000, discount: 200, 'd:2026-11-26': 1, 'w:2026-11-23': 1, 'm:2026-11': 2 },
      { id: 'cc:c1:k1', count: 1, 'd:2026-11-26': 1, 'w:2026-11-23': 1, 'm:2026-11': 1 },
      { id: 'cu:c1', count: 3, 'd:2026-11-26': 1, 'w:2026-11-23': 1, 'm:2026-11': 2 },
    ]
    const writes = counterWrites({ ...base, before: new Map(rows.map((r) => [r.id, r])), sign: -1 })
    expect(writes.find((w) => w.id === 'r:v1')?.by).toEqual({ count: -1, 'w:2026-11-23': -1, 'm:2026-11': -1 })
    expect(writes.find((w) => w.id === 'cu:c1')?.by).toEqual({
      count: -1,
      'd:2026-11-26': -1,
      'w:2026-11-23': -1,
      'm:2026-11': -1,
    })
    expect(writes.find((w) => w.id === 'c:c1')?.by.amount).toBe(-500)
  })
})
