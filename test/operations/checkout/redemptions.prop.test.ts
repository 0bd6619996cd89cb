import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { Redemption } from '../../../src/model/redemption'
import { testEngine } from '../../support/engine'
import { propertyRuns } from '../../support/store'

/*
 * Concurrency in the memory store: every operation awaits its store reads, so Promise.all interleaves
 * them; the commit's version check turns a stale decision into a conflict and `mutate` re-runs it.
 * With up to 12 requests racing for one voucher, the last one may lose up to 11 times, more than the
 * default 5 retries: these engines run with `maxRetries: 20`.
 */
const MAX_RETRIES = 20

/** The failure code of a redemption (undefined for a success). */
const failureCode = (r: Redemption) => (r.result === 'FAILURE' ? r.failure_code : undefined)

// Up to 3.3 s each on a 2-core machine at load 18: a safety limit, no timing is asserted.
describe('redeemStackable under concurrency', { timeout: 60_000 }, () => {
  it('N concurrent redemptions of a code with quantity Q: exactly min(N, Q) succeed', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 8 }), async (n, q) => {
        const { engine } = testEngine({ maxRetries: MAX_RETRIES })
        await engine.vouchers.create({
          code: 'RACE',
          type: 'DISCOUNT_VOUCHER',
          discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
          redemption: { quantity: q },
        })
        const body = { redeemables: [{ object: 'voucher', id: 'RACE' }], order: { amount: 1000 } }
        const results = await Promise.all(Array.from({ length: n }, () => engine.raw.redemptions.redeemStackable(body)))
        const successes = results.filter((r) => r.parent_redemption.result === 'SUCCESS')
        const failures = results.filter((r) => r.parent_redemption.result === 'FAILURE')
        expect(successes).toHaveLength(Math.min(n, q))
        for (const f of failures) expect(failureCode(f.parent_redemption)).toBe('quantity_exceeded')
        expect((await engine.vouchers.get('RACE')).redemption.redeemed_quantity).toBe(Math.min(n, q))
      }),
      { numRuns: propertyRuns(100) },
    )
  })

  it('concurrent session locks never exceed the quantity', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 10 }), fc.integer({ min: 1, max: 6 }), async (n, q) => {
        const { engine, store } = testEngine({ maxRetries: MAX_RETRIES })
        await engine.vouchers.create({
          code: 'LOCKS',
          type: 'DISCOUNT_VOUCHER',
          discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
          redemption: { quantity: q },
        })
        const body = {
          redeemables: [{ object: 'voucher', id: 'LOCKS' }],
          order: { amount: 1000 },
          session: { type: 'LOCK' },
        }
        const results = await Promise.all(
          Array.from({ length: n }, () => engine.raw.validations.validateStackable(body)),
        )
        expect(results.filter((r) => r.valid)).toHaveLength(Math.min(n, q))
        expect((await store.sessions.list()).data).toHaveLength(Math.min(n, q))
      }),
      { numRuns: propertyRuns(100) },
    )
  })

  it('a gift balance never goes negative under concurrent redemptions', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 20000 }),
        fc.array(fc.integer({ min: 1, max: 8000 }), { minLength: 1, maxLength: 10 }),
        async (amount, credits) => {
          const { engine } = testEngine({ maxRetries: MAX_RETRIES })
          await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount } })
          const results = await Promise.all(
            credits.map((c) =>
              engine.redemptions.redeemStackable({
                redeemables: [{ object: 'voucher', id: 'GIFT', gift: { credits: c } }],
                order: { amount: 10000 },
              }),
            ),
          )
          const spent = results
            .filter((r) => r.parent_redemption.result === 'SUCCESS')
            .reduce((sum, r) => sum + (r.redemptions[0]?.amount ?? 0), 0)
          const card = await engine.vouchers.get('GIFT')
          expect(card.gift?.balance).toBeGreaterThanOrEqual(0)
          expect(card.gift?.balance).toBe(amount - spent)
          expect(card.redemption.redeemed_amount).toBe(spent)
          for (const r of results) {
            if (r.parent_redemption.result === 'FAILURE')
              expect(failureCode(r.parent_redemption)).toBe('gift_amount_exceeded')
          }
        },
      ),
      { numRuns: propertyRuns(100) },
    )
  })
})

describe('redeem then roll back', { timeout: 60_000 }, () => {
  it('restores every balance and counter exactly', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          amount: fc.integer({ min: 1, max: 500_000 }),
          percent: fc.integer({ min: 1, max: 100 }),
          amountOff: fc.integer({ min: 0, max: 50_000 }),
          giftAmount: fc.integer({ min: 1, max: 100_000 }),
          credits: fc.option(fc.integer({ min: 1, max: 100_000 }), { nil: undefined }),
          earlier: fc.integer({ min: 0, max: 3 }),
          mode: fc.constantFrom('WITH_ORDER', 'WITHOUT_ORDER'),
        }),
        async (s) => {
          const { engine } = testEngine({
            stackingRules: { redeemables_application_mode: 'PARTIAL', redeemables_rollback_order_mode: s.mode },
          })
          await engine.vouchers.create({
            code: 'PCT',
            type: 'DISCOUNT_VOUCHER',
            discount: { type: 'PERCENT', percent_off: s.percent, effect: 'APPLY_TO_ORDER' },
            redemption: { quantity: 10 },
          })
          await engine.vouchers.create({ code: 'GIFT', type: 'GIFT_VOUCHER', gift: { amount: s.giftAmount } })
          const campaign = await engine.promotions.create({
            name: 'Promo',
            promotion: {
              tiers: [
                {
                  name: 'Off',
                  action: { discount: { type: 'AMOUNT', amount_off: s.amountOff, effect: 'APPLY_TO_ORDER' } },
                },
              ],
            },
          })
          const tierId = campaign.promotion.tiers[0]?.id as string
          const body = {
            redeemables: [
              { object: 'voucher', id: 'PCT' },
              { object: 'promotion_tier', id: tierId },
              { object: 'voucher', id: 'GIFT', ...(s.credits === undefined ? {} : { gift: { credits: s.credits } }) },
            ],
            order: { amount: s.amount },
          }
          // Earlier redemptions that stay, so the counters are not simply back to zero.
          for (let i = 0; i < s.earlier; i++) await engine.raw.redemptions.redeemStackable(body)
          const state = async () => {
            const pct = await engine.vouchers.get('PCT')
            const gift = await engine.vouchers.get('GIFT')
            const tier = await engine.promotions.tiers.get(tierId)
            return { pct: pct.redemption, gift: [gift.gift, gift.redemption], tier: tier.summary }
          }
          const before = await state()
          const redemption = await engine.raw.redemptions.redeemStackable(body)
          if (redemption.parent_redemption.result !== 'SUCCESS') return
          const rollback = await engine.redemptions.rollbackStackable(redemption.parent_redemption.id)
          expect(await state()).toEqual(before)
          const giftChild = redemption.redemptions.find((r) => r.gift)
          const giftRollback = rollback.rollbacks.find((r) => r.gift)
          expect(giftRollback?.amount).toBe(giftChild ? -(giftChild.amount ?? 0) : undefined)
          const order = rollback.order
          if (s.mode === 'WITH_ORDER') expect(order).toMatchObject({ status: 'CANCELED', total_amount: s.amount })
          else expect(order).toMatchObject({ status: 'PAID', total_amount: redemption.order.total_amount })
        },
      ),
      { numRuns: propertyRuns(100) },
    )
  })
})
