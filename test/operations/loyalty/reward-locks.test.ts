import { describe, expect, it } from 'vitest'
import type { Changeset, CommitResult, Store } from '../../../src/storage/ports'
import { rejection, testEngine } from '../../support/engine'
import { cardPayingWithPoints } from './fixtures'

/*
 * A reward redemption leaves the points other sessions lock on the card to them
 * (docs/storage.md#session-locks, docs/behaviour.md#sessions): decided on what the card holds less
 * the locks, and guarded at commit (`session_locks.minus_points` plus the balance never below zero),
 * refused as a payment with points is. Runs on memory and, in the postgres-operations project, on
 * PostgreSQL.
 */

type Engine = ReturnType<typeof testEngine>['engine']

/** The store, counting commits and those that applied an alternative. */
function counting(store: Store) {
  const counts = { commits: 0, applied: 0 }
  const wrapped = Object.assign(Object.create(store) as Store, {
    async commit(changeset: Changeset): Promise<CommitResult> {
      counts.commits++
      const result = await store.commit(changeset)
      if (result.ok && result.alternative) counts.applied++
      return result
    },
  })
  return { store: wrapped, counts }
}

/** Alice's card of 500 points, a coin reward to lock with, and rewards costing 150 and 100 points. */
async function setup(engine: Engine) {
  const fx = await cardPayingWithPoints(engine)
  const product = await engine.products.create({ name: 'Mug', source_id: 'mug' })
  const reward = async (name: string, points: number) => {
    const r = await engine.rewards.create({ name, type: 'MATERIAL', parameters: { product: { id: product.id } } })
    await engine.rewards.createAssignment(r.id, { campaign: fx.club.id, parameters: { loyalty: { points } } })
    return r
  }
  return { ...fx, dear: await reward('Dear', 150), cheap: await reward('Cheap', 100) }
}

/** A payment of `points` from alice's card (1 point = 1 cent) under a session key. */
function payment(card: { code: string }, coin: { id: string }, points: number, key: string) {
  return {
    customer: { source_id: 'alice' },
    order: { amount: 1000, status: 'CREATED' as const },
    redeemables: [{ object: 'voucher' as const, id: card.code, reward: { id: coin.id, points } }],
    session: { type: 'LOCK' as const, key },
  }
}

async function balanceOf(engine: Engine, cardId: string) {
  return (await engine.loyalties.getMember(null, cardId)).loyalty_card?.balance
}

describe('reward redemptions and points locked by sessions', () => {
  it('a card of 500, 400 locked: a reward of 150 is refused, one of 100 passes, the holder still gets its 400', async () => {
    const { engine } = testEngine()
    const { card, coin, club, dear, cheap } = await setup(engine)
    const locked = await engine.raw.validations.validateStackable(payment(card, coin, 400, 'holder'))
    expect(locked.session?.key).toBe('holder')

    const refused = await rejection(engine.loyalties.redeemReward(club.id, card.id, { reward: { id: dear.id } }))
    expect(refused.key).toBe('loyalty_card_points_exceeded')
    expect(refused.details).toBe('150 points needed, 100 available (400 locked by sessions)')
    expect(await balanceOf(engine, card.id)).toBe(500)

    const fits = await engine.loyalties.redeemReward(club.id, card.id, { reward: { id: cheap.id } })
    expect(fits.result).toBe('SUCCESS')
    expect(await balanceOf(engine, card.id)).toBe(400)
    const held = await engine.raw.redemptions.redeemStackable(payment(card, coin, 400, 'holder'))
    expect(held.parent_redemption.result).toBe('SUCCESS')
    expect(await balanceOf(engine, card.id)).toBe(0)
  })

  it('a lock and reward redemptions decided at once: the guard at commit refuses what the lock holds, in the same commit', async () => {
    // Every request reads the card before any commits: a reward redemption committing after the lock
    // finds the points held by the guard, not by its decision.
    let answered = 0
    let memory = false
    for (let round = 0; round < 5; round++) {
      const base = testEngine()
      const { store, counts } = counting(base.store)
      const { engine } = testEngine({ store })
      // The memory store (one process, no I/O) schedules attempts the same way every run.
      memory = 'rowsExamined' in ((base.store as { stats?: object }).stats ?? {})
      const { card, coin, club, dear } = await setup(engine)
      counts.commits = 0
      const [lock, ...others] = await Promise.all([
        engine.raw.validations.validateStackable(payment(card, coin, 400, 'holder')),
        ...Array.from({ length: 4 }, () =>
          engine.loyalties.redeemReward(club.id, card.id, { reward: { id: dear.id } }).then(
            (r) => r.result,
            (e: { key?: string }) => e.key,
          ),
        ),
      ])
      // One commit per request on the memory store: a refusal found at commit is answered by the
      // alternative it carried, never by deciding again (a database's I/O may reorder the attempts).
      if (memory) expect(counts.commits).toBe(5)
      for (const r of others) expect(['SUCCESS', 'loyalty_card_points_exceeded']).toContain(r)
      const paid = others.filter((r) => r === 'SUCCESS').length
      if (lock.valid) {
        // The lock got its 400: the 100 left cannot pay 150.
        expect(paid).toBe(0)
        answered += counts.applied
        const held = await engine.raw.redemptions.redeemStackable(payment(card, coin, 400, 'holder'))
        expect(held.parent_redemption.result).toBe('SUCCESS')
        expect(await balanceOf(engine, card.id)).toBe(100)
      } else {
        // The rewards got there first: 3 × 150 of the 500, and the 50 left cannot hold 400.
        expect(paid).toBe(3)
        expect(await balanceOf(engine, card.id)).toBe(50)
      }
    }
    // The rounds where the lock committed first refused the rewards at commit, in that commit.
    if (memory) expect(answered).toBeGreaterThan(0)
  })

  it('a lock expired is released by the reward redemption it would refuse, and stops counting', async () => {
    const { engine, clock } = testEngine()
    const { card, coin, club, dear } = await setup(engine)
    await engine.raw.validations.validateStackable({
      ...payment(card, coin, 400, 'holder'),
      session: { type: 'LOCK', key: 'holder', ttl: 1, ttl_unit: 'HOURS' },
    })
    expect((await rejection(engine.loyalties.redeemReward(club.id, card.id, { reward: { id: dear.id } }))).key).toBe(
      'loyalty_card_points_exceeded',
    )
    clock.advance(3_600_000)
    const passed = await engine.loyalties.redeemReward(club.id, card.id, { reward: { id: dear.id } })
    expect(passed.result).toBe('SUCCESS')
    expect(await balanceOf(engine, card.id)).toBe(350)
    // The holder's lock is gone: it pays from what is left like anyone.
    const late = await engine.raw.redemptions.redeemStackable(payment(card, coin, 400, 'holder'))
    expect(late.parent_redemption.result).toBe('FAILURE')
  })
})
