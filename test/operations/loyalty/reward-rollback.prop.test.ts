import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import { mutate } from '../../../src/operations/kernel/unit-of-work'
import { creditCard, loadCard } from '../../../src/operations/loyalty/points-ledger'
import { testEngine } from '../../support/engine'
import { propertyRuns } from '../../support/store'
import { member, program } from './fixtures'

const credits = fc.array(
  fc.record({ points: fc.integer({ min: 1, max: 400 }), days: fc.option(fc.integer({ min: 1, max: 60 })) }),
  { minLength: 1, maxLength: 5 },
)
const reward = fc.oneof(
  fc.record({ kind: fc.constant('MATERIAL' as const), cost: fc.integer({ min: 1, max: 600 }), stock: fc.nat(3) }),
  fc.record({
    kind: fc.constant('COIN' as const),
    points: fc.option(fc.integer({ min: 1, max: 600 })),
    amount: fc.integer({ min: 1, max: 100000 }),
  }),
)

describe('reward redemption then rollback', () => {
  it('restores the card balance, every bucket and the reward stock exactly', async () => {
    await fc.assert(
      fc.asyncProperty(credits, reward, async (earned, r) => {
        const { engine, store } = testEngine()
        const club = await program(engine)
        const card = await member(engine, club.id)
        await mutate(engineContext(engine), async (tx) => {
          const stored = await tx.store.vouchers.get(card.id)
          if (!stored) throw new Error('card missing')
          const c = await loadCard(tx, stored)
          for (const e of earned) {
            const expiresAt = e.days === null ? null : new Date(tx.now.getTime() + e.days * 86_400_000)
            creditCard(tx, c, { points: e.points, expiresAt, source: { type: 'manual' } })
          }
        })
        let rewardId: string
        let body: Record<string, unknown>
        if (r.kind === 'MATERIAL') {
          const product = await engine.products.create({ name: 'Mug', source_id: 'mug' })
          const mug = await engine.rewards.create({
            name: 'Mug',
            type: 'MATERIAL',
            parameters: { product: { id: product.id } },
            stock: r.stock,
          })
          await engine.rewards.createAssignment(mug.id, {
            campaign: club.id,
            parameters: { loyalty: { points: r.cost } },
          })
          rewardId = mug.id
          body = { reward: { id: mug.id } }
        } else {
          const coin = await engine.rewards.create({
            name: 'Pay',
            type: 'COIN',
            parameters: { coin: { exchange_ratio: 1, points_ratio: 10 } },
          })
          await engine.rewards.createAssignment(coin.id, { campaign: club.id })
          rewardId = coin.id
          body = {
            reward: { id: coin.id, ...(r.points === null ? {} : { points: r.points }) },
            order: { amount: r.amount },
          }
        }
        const state = async () => {
          const v = await engine.loyalties.getMember(null, card.id)
          const buckets = (await store.points_buckets.list({ where: { voucher_id: card.id } })).data
            .map((b) => b.value)
            .sort((a, b) => a.id.localeCompare(b.id))
          const rw = await engine.rewards.get(rewardId)
          return {
            balance: v.loyalty_card?.balance,
            points: v.loyalty_card?.points,
            redeemed_points: v.redemption.redeemed_points,
            redeemed_quantity: v.redemption.redeemed_quantity,
            buckets: buckets.map((b) => [b.id, b.remaining, b.status]),
            bucketSum: buckets.reduce((n, b) => n + b.remaining, 0),
            stock: rw.stock,
            redeemed: rw.redeemed,
          }
        }
        const before = await state()
        expect(before.bucketSum).toBe(earned.reduce((n, e) => n + e.points, 0))
        const redeemed = await engine.raw.loyalties.redeemReward(club.id, card.id, body).then(
          (x) => x,
          () => null,
        )
        if (redeemed === null) {
          expect(await state()).toEqual(before)
          return
        }
        const spent = await state()
        expect(spent.balance).toBe((before.balance ?? 0) - (redeemed.amount ?? 0))
        await engine.redemptions.rollback(redeemed.id)
        expect(await state()).toEqual(before)
      }),
      { numRuns: propertyRuns(100) },
    )
    // A hundred engines set up one after another: seconds on a shared, loaded machine.
  }, 60_000)
})
