import { describe, expect, it } from 'vitest'
import { createMemoryStore } from '../../../src/memory'
import type { Store } from '../../../src/storage/ports'
import { amountOffVoucher, rejection, snapshot, testEngine } from '../../support/engine'
import { cardPayingWithPoints, program } from '../loyalty/fixtures'

const redeemBody = {
  redeemables: [{ object: 'voucher', id: 'TEN' }],
  order: { amount: 5000 },
  customer: { source_id: 'ann' },
}

async function withVoucher(options: Parameters<typeof testEngine>[0] = {}) {
  const t = testEngine(options)
  await amountOffVoucher(t.engine, 'TEN', 1000, 5)
  return t
}

/** A store whose next commit applies and then fails, as a database whose acknowledgement was lost. */
function losingNextAcknowledgement(inner: Store): Store & { loseNext(): void } {
  let lose = false
  return {
    ...inner,
    async commit(changeset) {
      const outcome = await inner.commit(changeset)
      if (lose) {
        lose = false
        throw new Error('commit_outcome_unknown: connection lost after COMMIT was sent')
      }
      return outcome
    },
    loseNext() {
      lose = true
    },
  }
}

describe('idempotency keys', () => {
  it('a redemption retried with its key after a dropped response redeems once and gets the same response', async () => {
    const { engine, store } = await withVoucher()
    const first = await engine.raw.redemptions.redeemStackable(redeemBody, { idempotencyKey: 'k1' })
    const before = await snapshot(store)
    const again = await engine.raw.redemptions.redeemStackable(redeemBody, { idempotencyKey: 'k1' })
    expect(again).toEqual(first)
    expect(await snapshot(store)).toBe(before)
    expect((await engine.vouchers.get('TEN')).redemption.redeemed_quantity).toBe(1)
    // Without the key the same body is a new redemption.
    await engine.raw.redemptions.redeemStackable(redeemBody)
    expect((await engine.vouchers.get('TEN')).redemption.redeemed_quantity).toBe(2)
  })

  it('a failed redemption replays with its inapplicable redeemables and the request order', async () => {
    const { engine } = await withVoucher()
    const body = { ...redeemBody, redeemables: [{ object: 'voucher', id: 'NOPE' }] }
    const first = await engine.raw.redemptions.redeemStackable(body, { idempotencyKey: 'f' })
    expect(first.parent_redemption.result).toBe('FAILURE')
    expect(await engine.raw.redemptions.redeemStackable(body, { idempotencyKey: 'f' })).toEqual(first)
  })

  it('the same key with another input is a 422 idempotency_key_reused and changes nothing', async () => {
    const { engine, store } = await withVoucher()
    await engine.raw.redemptions.redeemStackable(redeemBody, { idempotencyKey: 'k' })
    const before = await snapshot(store)
    const error = await rejection(
      engine.raw.redemptions.redeemStackable({ ...redeemBody, order: { amount: 6000 } }, { idempotencyKey: 'k' }),
    )
    expect(error).toMatchObject({ code: 422, key: 'idempotency_key_reused', path: 'Idempotency-Key' })
    expect(await snapshot(store)).toBe(before)
  })

  it('keys are per operation: one key on two operations gives two effects', async () => {
    const { engine } = await withVoucher()
    await engine.raw.redemptions.redeemStackable(redeemBody, { idempotencyKey: 'same' })
    const order = await engine.orders.create({ amount: 100 }, { idempotencyKey: 'same' })
    expect(order.amount).toBe(100)
  })

  it('concurrent calls with one key give one effect and one result', async () => {
    const { engine } = await withVoucher()
    const results = await Promise.all(
      Array.from({ length: 8 }, () => engine.raw.redemptions.redeemStackable(redeemBody, { idempotencyKey: 'c' })),
    )
    for (const r of results) expect(r).toEqual(results[0])
    expect((await engine.vouchers.get('TEN')).redemption.redeemed_quantity).toBe(1)
  })

  it('a commit whose outcome is unknown, retried with its key, takes effect once', async () => {
    const store = losingNextAcknowledgement(createMemoryStore())
    const { engine } = await withVoucher({ store })
    store.loseNext()
    await expect(engine.raw.redemptions.redeemStackable(redeemBody, { idempotencyKey: 'u' })).rejects.toThrow(
      /commit_outcome_unknown/,
    )
    const retried = await engine.raw.redemptions.redeemStackable(redeemBody, { idempotencyKey: 'u' })
    expect(retried.parent_redemption.result).toBe('SUCCESS')
    expect((await engine.vouchers.get('TEN')).redemption.redeemed_quantity).toBe(1)
  })

  it('an expired key is forgotten: the call runs again', async () => {
    const { engine, clock } = await withVoucher({ idempotencyTtlSeconds: 60 })
    const first = await engine.orders.create({ amount: 100 }, { idempotencyKey: 'e' })
    clock.advance(59_000)
    expect((await engine.orders.create({ amount: 100 }, { idempotencyKey: 'e' })).id).toBe(first.id)
    clock.advance(2_000)
    expect((await engine.orders.create({ amount: 100 }, { idempotencyKey: 'e' })).id).not.toBe(first.id)
  })

  it('rejects a malformed key as bad input', async () => {
    const { engine } = await withVoucher()
    expect(await rejection(engine.orders.create({ amount: 1 }, { idempotencyKey: 'has space' }))).toMatchObject({
      code: 400,
      path: 'idempotencyKey',
    })
  })

  it('rollbacks, member creation, custom events, publications and reward redemptions replay', async () => {
    const { engine, store } = await withVoucher()
    const r = await engine.raw.redemptions.redeemStackable(redeemBody)
    const stacked = await engine.redemptions.rollbackStackable(r.parent_redemption.id, {}, { idempotencyKey: 'rb' })
    const { club, card, coin } = await cardPayingWithPoints(engine)
    await engine.metadataSchemas.create({ related_object: 'visited', properties: {} })
    const other = await program(engine, { name: 'Other' })
    const calls = [
      () => engine.redemptions.rollbackStackable(r.parent_redemption.id, {}, { idempotencyKey: 'rb' }),
      () => engine.loyalties.createMember(other.id, { customer: { source_id: 'bob' } }, { idempotencyKey: 'm' }),
      () => engine.events.create('visited', { customer: { source_id: 'bob' } }, { idempotencyKey: 'ev' }),
      () => engine.publications.create({ voucher: 'TEN', customer: { source_id: 'bob' } }, { idempotencyKey: 'p' }),
      () =>
        engine.loyalties.redeemReward(
          club.id,
          card.code,
          { reward: { id: coin.id, points: 100 }, order: { amount: 5000 } },
          { idempotencyKey: 'rw' },
        ),
    ]
    expect(await calls[0]?.()).toEqual(stacked)
    for (const call of calls.slice(1)) {
      const first = await call()
      const before = await snapshot(store)
      expect(await call()).toEqual(first)
      expect(await snapshot(store)).toBe(before)
    }
  })
})
