import { describe, expect, it } from 'vitest'
import { testEngine } from '../../support/engine'
import { member, program } from './fixtures'

describe('earning rule with points_formula', () => {
  it('an order.paid rule earns ROUND(ORDER_AMOUNT ÷ 10; 0) points', async () => {
    const { engine } = testEngine()
    const club = await program(engine)
    await engine.loyalties.createEarningRule(club.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 1, points_formula: 'ROUND(ORDER_AMOUNT ÷ 10; 0)' } },
    ])
    const card = await member(engine, club.id)
    await engine.orders.create({
      source_id: 'o1',
      status: 'PAID',
      customer: { source_id: 'alice' },
      items: [{ product_id: 'prod_1', quantity: 3, price: 4150 }],
    })
    // 124.50 ÷ 10 = 12.45 → 12
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card?.balance).toBe(12)
  })
})
