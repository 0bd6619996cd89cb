import { describe, expect, it } from 'vitest'
import { counterIds, evalCounters } from '../../src/rules/counters'

const at = new Date('2026-11-26T12:00:00Z')
const suffixes = ['', '|d:2026-11-26', '|w:2026-11-23', '|m:2026-11']
const rows = (...bases: string[]) => bases.flatMap((b) => suffixes.map((s) => b + s))

describe('counterIds', () => {
  it('a code in a campaign, for a known customer: every family, every period', () => {
    expect(counterIds({ redeemableId: 'v1', campaignId: 'c1', customerId: 'k1' }, at, 'UTC')).toEqual(
      rows('r:v1', 'rc:v1:k1', 'c:c1', 'cc:c1:k1', 'cu:c1'),
    )
  })

  it('a standalone code is its own campaign: each row once', () => {
    const ids = counterIds({ redeemableId: 'v1', campaignId: null, customerId: 'k1' }, at, 'UTC')
    expect(ids).toEqual(rows('r:v1', 'rc:v1:k1', 'cu:v1'))
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('no customer: no customer rows', () => {
    expect(counterIds({ redeemableId: 'v1', campaignId: null, customerId: null }, at, 'UTC')).toEqual(
      rows('r:v1', 'cu:v1'),
    )
  })

  it('evalCounters reads the rows counterIds names (absent rows count 0)', () => {
    const scope = { redeemableId: 'v1', campaignId: null, customerId: 'k1' }
    const counts = new Map(counterIds(scope, at, 'UTC').map((id, i) => [id, { id, count: i + 1 }]))
    const counters = evalCounters(scope, counts, at, 'UTC')
    expect(counters.redemptions).toEqual({ total: 1, daily: 2, weekly: 3, monthly: 4 })
    expect(counters.campaign_redemptions).toEqual(counters.redemptions)
    expect(counters.customer_redemptions).toEqual({ total: 5, daily: 6, weekly: 7, monthly: 8 })
    expect(counters.campaign_customers).toEqual({ total: 9, daily: 10, weekly: 11, monthly: 12 })
    expect(evalCounters(scope, new Map(), at, 'UTC').redemptions).toEqual({ total: 0, daily: 0, weekly: 0, monthly: 0 })
  })
})
