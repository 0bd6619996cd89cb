import { describe, expect, it } from 'vitest'
import { program } from '../operations/loyalty-fixtures'
import { testEngine } from '../support/engine'

describe('optional objects the hosted responses omit are omitted, not null', () => {
  it("a program without loyalty_tiers_expiration, an earning rule without expiration_rules or pending_points, a program's tier", async () => {
    const { engine } = testEngine()
    const club = await program(engine)
    expect(club).not.toHaveProperty('loyalty_tiers_expiration')
    const [rule] = await engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 5 } },
    ])
    expect(rule).not.toHaveProperty('expiration_rules')
    expect(rule).not.toHaveProperty('pending_points')
    const [tier] = await engine.loyalties.createTiers(club.id, [{ name: 'Gold', points: { from: 1 } }])
    expect(tier).not.toHaveProperty('expiration')
  })

  it('a validation rule without bundle_rules', async () => {
    const { engine } = testEngine()
    const rule = await engine.validationRules.create({
      name: 'Over 100',
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [10000] } }, logic: '1' },
    })
    expect(rule).not.toHaveProperty('bundle_rules')
  })

  it('kept when given: a program with tier expiration shows it', async () => {
    const { engine } = testEngine()
    const club = await program(engine, {
      loyalty_tiers_expiration: { qualification_type: 'BALANCE', expiration_date: { type: 'BALANCE_DROP' } },
    })
    expect(club.loyalty_tiers_expiration).toEqual({
      qualification_type: 'BALANCE',
      expiration_date: { type: 'BALANCE_DROP' },
    })
  })
})
