import { describe, expect, it } from 'vitest'
import type { Counter } from '../../../src/storage/ports'
import { testEngine } from '../../support/engine'
import { dailyLimitedCode } from '../../support/shops'

/*
 * A budget counter is one row, its total and a field per current period (docs/storage.md#counters):
 * each day, week and month counts afresh, concurrent redemptions stay within the period's budget, a
 * row keeps at most the current and the previous period of each kind, and a rollback takes a
 * redemption out of the periods of its date that the row still holds. On every store.
 */

const DAY = 86_400_000

async function campaignWithDailyBudget(limit: number) {
  const t = testEngine()
  const campaign = await t.engine.campaigns.create({
    name: 'Daily',
    campaign_type: 'DISCOUNT_COUPONS',
    type: 'AUTO_UPDATE',
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
    vouchers_count: 1,
  })
  const rule = await t.engine.validationRules.create({
    name: `at most ${limit} a day`,
    rules: { '1': { name: 'campaign.redemptions.count.daily', conditions: { $less_than_or_equal: [limit] } } },
  })
  await t.engine.validationRules.createAssignment(rule.id, {
    related_object_type: 'campaign',
    related_object_id: campaign.id,
  })
  const code = (await t.store.vouchers.list({ where: { campaign_id: campaign.id } })).data[0]?.value.code as string
  const redeem = (customer: string) =>
    t.engine.redemptions.redeemStackable({
      customer: { source_id: customer },
      redeemables: [{ object: 'voucher', id: code }],
      order: { amount: 1000 },
    })
  const row = async (id: string) => (await t.store.counters.get(id))?.value as Counter
  return { ...t, campaign, redeem, row }
}

/** The period fields of a counter row, by kind. */
function periodsOf(row: Counter): Record<'d' | 'w' | 'm', string[]> {
  const keys = Object.keys(row).sort()
  return {
    d: keys.filter((k) => k.startsWith('d:')),
    w: keys.filter((k) => k.startsWith('w:')),
    m: keys.filter((k) => k.startsWith('m:')),
  }
}

describe('budget counters with a field per period', () => {
  it('a daily campaign budget over six days, 8 customers at once each day: 3 a day, the rows keep two days', async () => {
    const { campaign, redeem, row, clock } = await campaignWithDailyBudget(3)
    // Thursday 15 January to Tuesday 20 January 2026: a new week on Monday the 19th.
    for (let day = 0; day < 6; day++) {
      const results = await Promise.all(Array.from({ length: 8 }, (_, i) => redeem(`d${day}-c${i}`)))
      expect(results.filter((r) => r.parent_redemption.result === 'SUCCESS')).toHaveLength(3)
      clock.advance(DAY)
    }
    const c = await row(`c:${campaign.id}`)
    expect(c).toMatchObject({ count: 18, amount: 18_000, 'd:2026-01-19': 3, 'd:2026-01-20': 3, 'm:2026-01': 18 })
    expect(c).toMatchObject({ 'w:2026-01-12': 12, 'w:2026-01-19': 6 })
    expect(periodsOf(c)).toEqual({
      d: ['d:2026-01-19', 'd:2026-01-20'],
      w: ['w:2026-01-12', 'w:2026-01-19'],
      m: ['m:2026-01'],
    })
    // The distinct customers of the campaign: 18, 3 of them today.
    expect(await row(`cu:${campaign.id}`)).toMatchObject({ count: 18, 'd:2026-01-20': 3, 'w:2026-01-19': 6 })
    expect(periodsOf(await row(`cu:${campaign.id}`)).d).toEqual(['d:2026-01-19', 'd:2026-01-20'])
  })

  it('a rollback takes a redemption out of its own day, and leaves a day pruned since alone', async () => {
    const { campaign, redeem, row, clock, engine } = await campaignWithDailyBudget(2)
    const first = await redeem('alice')
    expect(first.parent_redemption.result).toBe('SUCCESS')
    clock.advance(3 * DAY)
    // Sunday 18 January: the 15th is older than yesterday, and this redemption removes it.
    const today = await redeem('bob')
    expect(today.parent_redemption.result).toBe('SUCCESS')
    expect(periodsOf(await row(`c:${campaign.id}`)).d).toEqual(['d:2026-01-18'])
    await engine.redemptions.rollbackStackable(first.parent_redemption.id)
    await engine.redemptions.rollbackStackable(today.parent_redemption.id)
    const c = await row(`c:${campaign.id}`)
    expect(c).toMatchObject({ count: 0, 'd:2026-01-18': 0, 'w:2026-01-12': 0, 'm:2026-01': 0 })
    expect(periodsOf(c).d).toEqual(['d:2026-01-18'])
    expect(await row(`cu:${campaign.id}`)).toMatchObject({ count: 0, 'd:2026-01-18': 0, 'm:2026-01': 0 })
    // Today's budget is whole again: two more redemptions fit, the third does not.
    const again = await Promise.all(['carol', 'dave', 'erin'].map((who) => redeem(who)))
    expect(again.filter((r) => r.parent_redemption.result === 'SUCCESS')).toHaveLength(2)
  })

  it('period rows of an earlier release, folded by maintenance.foldPeriodCounters: a daily limit is not reset', async () => {
    const t = testEngine()
    t.clock.set('2026-11-26T12:00:00.000Z')
    const code = await dailyLimitedCode(t.engine)
    // As an earlier release left them, written by store commits of literal rows.
    const r = `r:${code.id}`
    const rows: [string, Record<string, number>][] = [
      [r, { count: 9, amount: 9000, discount: 900 }],
      [`${r}|d:2026-11-26`, { count: 2 }],
      [`${r}|d:2026-11-20`, { count: 3 }],
      [`${r}|w:2026-11-23`, { count: 6 }],
      [`${r}|m:2026-11`, { count: 9 }],
    ]
    const seeded = await t.store.commit({
      writes: rows.map(([id, by]) => ({ op: 'increment', collection: 'counters', id, by, create: {}, shape: 1 })),
    })
    expect(seeded.ok).toBe(true)
    let page = await t.engine.maintenance.foldPeriodCounters({ limit: 2 })
    let folded = page.filled
    while (page.next_starting_after !== null) {
      page = await t.engine.maintenance.foldPeriodCounters({ limit: 2, starting_after: page.next_starting_after })
      folded += page.filled
    }
    expect(folded).toBe(4)
    expect(
      (await t.store.counters.list({ order: { field: 'id', direction: 'asc' }, limit: 100 })).data.map(
        (x) => x.value.id,
      ),
    ).toEqual([r])
    // The old day is dropped (it counts for no decision); the current ones are fields of the row.
    expect((await t.store.counters.get(r))?.value).toEqual({
      id: r,
      count: 9,
      amount: 9000,
      discount: 900,
      'd:2026-11-26': 2,
      'w:2026-11-23': 6,
      'm:2026-11': 9,
    })
    // Run again: nothing left to fold, nothing counted twice.
    expect(await t.engine.maintenance.foldPeriodCounters()).toMatchObject({ filled: 0, next_starting_after: null })
    const body = {
      customer: { source_id: 'shopper' },
      redeemables: [{ object: 'voucher' as const, id: 'DAILY' }],
      order: { amount: 1000 },
    }
    const results = []
    for (let i = 0; i < 3; i++)
      results.push((await t.engine.redemptions.redeemStackable(body)).parent_redemption.result)
    // Two counted today: one more fits (all three would, had the upgrade reset the day).
    expect(results).toEqual(['SUCCESS', 'FAILURE', 'FAILURE'])
  })
})
