import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

/*
 * Source: the hosted service's OpenAPI document, schema `Gift` (repository
 * voucherify-openapi, file OpenAPI.json): "`balance` = `amount` - `subtracted_amount` - `redemption.redeemed_amount`",
 * `subtracted_amount` being the credits taken off the card, `redeemed_amount` the credits spent in
 * redemptions. docs/behaviour.md#gift-card-balance.
 */

type T = ReturnType<typeof testEngine>

const identity = (v: {
  gift?: { amount: number; subtracted_amount?: number; balance: number } | null
  redemption: { redeemed_amount?: number }
}) => (v.gift?.amount ?? 0) - (v.gift?.subtracted_amount ?? 0) - (v.redemption.redeemed_amount ?? 0)

const spend = (t: T, credits: number) =>
  t.engine.redemptions.redeemStackable({
    redeemables: [{ object: 'voucher', id: 'GIFT-1', gift: { credits } }],
    order: { amount: 50000 },
  })

describe('gift card arithmetic (OpenAPI Gift.balance)', () => {
  it('spending moves redeemed_amount, not subtracted_amount; a rollback gives the credits back', async () => {
    const t = testEngine()
    await t.engine.vouchers.create({ code: 'GIFT-1', type: 'GIFT_VOUCHER', gift: { amount: 10000 } })
    const first = await spend(t, 2000)
    await spend(t, 500)
    let card = await t.engine.vouchers.get('GIFT-1')
    expect(card.gift).toMatchObject({ amount: 10000, subtracted_amount: 0, balance: 7500 })
    expect(card.redemption.redeemed_amount).toBe(2500)
    expect(identity(card)).toBe(card.gift?.balance)
    await t.engine.redemptions.rollbackStackable(first.parent_redemption.id)
    card = await t.engine.vouchers.get('GIFT-1')
    expect(card.gift).toMatchObject({ amount: 10000, subtracted_amount: 0, balance: 9500 })
    expect(card.redemption.redeemed_amount).toBe(500)
    expect(identity(card)).toBe(card.gift?.balance)
  })

  it('a card stored before (shape 1, spending counted in subtracted_amount) reads right, also after later redemptions', async () => {
    const t = testEngine()
    const id = (await t.engine.vouchers.create({ code: 'GIFT-1', type: 'GIFT_VOUCHER', gift: { amount: 10000 } })).id
    await spend(t, 3000)
    // What the earlier engine wrote: the card in shape 1, the spent credits added to subtracted_amount.
    const stored = await t.store.vouchers.get(id)
    const gift = stored?.value.gift
    if (!stored || !gift) throw new Error('the card is stored')
    await t.store.commit({
      writes: [
        {
          op: 'put',
          collection: 'vouchers',
          value: { ...stored.value, gift: { ...gift, subtracted_amount: (gift.subtracted_amount ?? 0) + 3000 } },
          expectedVersion: stored.version,
          shape: 1,
        },
      ],
    })
    const raw = await t.store.vouchers.get(id)
    expect(raw?.shape).toBe(1)
    expect(raw?.value.gift).toMatchObject({ amount: 10000, subtracted_amount: 3000, balance: 7000 })
    let card = await t.engine.vouchers.get('GIFT-1')
    expect(card.gift).toMatchObject({ amount: 10000, subtracted_amount: 0, balance: 7000 })
    expect(card.redemption.redeemed_amount).toBe(3000)
    // A later redemption of the card still reads right.
    await spend(t, 1000)
    card = await t.engine.vouchers.get('GIFT-1')
    expect(card.gift).toMatchObject({ amount: 10000, subtracted_amount: 0, balance: 6000 })
    expect(card.redemption.redeemed_amount).toBe(4000)
  })
})
