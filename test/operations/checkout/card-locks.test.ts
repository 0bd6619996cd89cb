import { describe, expect, it } from 'vitest'
import type { Redemption } from '../../../src/model/redemption'
import { testEngine } from '../../support/engine'
import { cardPayingWithPoints } from '../loyalty/fixtures'

/*
 * Points a session locks on a loyalty card hold at commit, not only when deciding
 * (docs/storage.md#session-locks): the card's balance guard counts what other sessions' live locks
 * hold, and the holder's redemption takes its own lock out in the same increment. Runs on memory and,
 * in the postgres-operations project, on PostgreSQL.
 */

type Engine = ReturnType<typeof testEngine>['engine']

/** A payment of `points` from alice's card (1 point = 1 cent), optionally under a session key. */
function payment(card: { code: string }, coin: { id: string }, points: number, key?: string) {
  return {
    customer: { source_id: 'alice' },
    order: { amount: 1000, status: 'CREATED' as const },
    redeemables: [{ object: 'voucher' as const, id: card.code, reward: { id: coin.id, points } }],
    ...(key ? { session: { type: 'LOCK' as const, key } } : {}),
  }
}

const failureOf = (r: Redemption) => (r.result === 'FAILURE' ? r.failure_code : undefined)

async function balanceOf(engine: Engine, cardId: string) {
  return (await engine.loyalties.getMember(null, cardId)).loyalty_card?.balance
}

describe("a card's points locked by a session", () => {
  it('a card of 500, 400 locked: another redemption of 150 is refused, one of 100 passes, the holder redeems its 400', async () => {
    const { engine } = testEngine()
    const { card, coin } = await cardPayingWithPoints(engine)
    const locked = await engine.raw.validations.validateStackable(payment(card, coin, 400, 'holder'))
    expect(locked.valid).toBe(true)
    expect(locked.session?.key).toBe('holder')

    const refused = await engine.raw.redemptions.redeemStackable(payment(card, coin, 150, 'other'))
    expect(failureOf(refused.parent_redemption)).toBe('loyalty_card_points_exceeded')
    expect(refused.inapplicable_redeemables[0]?.explanation).toMatchObject({
      detail: '150 points needed, 100 available (400 locked by sessions)',
    })
    expect(await balanceOf(engine, card.id)).toBe(500)

    const fits = await engine.raw.redemptions.redeemStackable(payment(card, coin, 100, 'other'))
    expect(fits.parent_redemption.result).toBe('SUCCESS')
    const held = await engine.raw.redemptions.redeemStackable(payment(card, coin, 400, 'holder'))
    expect(held.parent_redemption.result).toBe('SUCCESS')
    expect(await balanceOf(engine, card.id)).toBe(0)
  })

  it('a lock and redemptions of other sessions decided at once: the guard refuses what the lock holds, the holder redeems', async () => {
    // The lock and the others' redemptions all read the card before any commits: whichever commits
    // second finds the points taken by the guard, not by its decision.
    for (let round = 0; round < 5; round++) {
      const { engine } = testEngine()
      const { card, coin } = await cardPayingWithPoints(engine)
      const [lock, ...others] = await Promise.all([
        engine.raw.validations.validateStackable(payment(card, coin, 400, 'holder')),
        ...Array.from({ length: 4 }, (_, i) =>
          engine.raw.redemptions.redeemStackable(payment(card, coin, 150, `other-${i}`)),
        ),
      ])
      const paid = others.filter((r) => r.parent_redemption.result === 'SUCCESS').length
      for (const r of others) {
        if (r.parent_redemption.result !== 'SUCCESS')
          expect(failureOf(r.parent_redemption)).toBe('loyalty_card_points_exceeded')
      }
      if (lock.valid) {
        // The lock got its 400: at most 100 more could go to others, none of 150.
        expect(paid).toBe(0)
        const held = await engine.raw.redemptions.redeemStackable(payment(card, coin, 400, 'holder'))
        expect(held.parent_redemption.result).toBe('SUCCESS')
        expect(await balanceOf(engine, card.id)).toBe(100)
      } else {
        // The others got there first: 3 × 150 of the 500, and the 50 left cannot hold 400.
        expect(paid).toBe(3)
        expect(await balanceOf(engine, card.id)).toBe(50)
      }
    }
  })
})
