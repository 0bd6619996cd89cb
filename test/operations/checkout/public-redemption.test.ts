import { describe, expect, it } from 'vitest'
import { testEngine } from '../../support/engine'
import { member, program } from '../loyalty/fixtures'

async function setup() {
  const t = testEngine()
  const club = await program(t.engine, {
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 500 }, code_config: { pattern: 'CLUB-####' } },
  })
  const card = await member(t.engine, club.id)
  const coin = await t.engine.rewards.create({
    name: 'Pay',
    type: 'COIN',
    parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } },
  })
  await t.engine.rewards.createAssignment(coin.id, { campaign: club.id })
  return { ...t, club, card, coin }
}

describe('points_taken is bookkeeping: stored, never returned', () => {
  it('redeemReward and redemptions.get return no points_taken; the store keeps it and a rollback uses it', async () => {
    const { engine, store, club, card, coin } = await setup()
    const r = await engine.loyalties.redeemReward(club.id, card.code, {
      reward: { id: coin.id, points: 120 },
      order: { amount: 5000 },
    })
    expect(r).toMatchObject({ amount: 120, related_object_type: 'voucher' })
    expect(r).not.toHaveProperty('points_taken')
    expect(await engine.redemptions.get(r.id)).not.toHaveProperty('points_taken')
    expect((await store.redemptions.get(r.id))?.value.points_taken).toEqual([
      { bucketId: expect.any(String), points: 120 },
    ])
    await engine.redemptions.rollback(r.id)
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card).toMatchObject({ balance: 500 })
  })

  it('redeemStackable children return no points_taken but keep related_object_parent_id; the parent keeps related_redemptions', async () => {
    const { engine, store, club, card, coin } = await setup()
    const result = await engine.redemptions.redeemStackable({
      customer: { source_id: 'alice' },
      order: { amount: 5000 },
      redeemables: [{ object: 'voucher', id: card.code, reward: { id: coin.id, points: 80 } }],
    })
    const child = result.redemptions[0]
    expect(child).toMatchObject({ related_object_parent_id: club.id, loyalty_card: { points: 80 } })
    expect(child).not.toHaveProperty('points_taken')
    expect(await engine.redemptions.get(child?.id ?? '')).not.toHaveProperty('points_taken')
    expect((await store.redemptions.get(child?.id ?? ''))?.value.points_taken).toHaveLength(1)
    expect(result.parent_redemption.related_redemptions).toEqual({
      rollbacks: [],
      redemptions: [{ id: child?.id, date: '2026-01-15T10:00:00.000Z' }],
    })
    await engine.redemptions.rollbackStackable(result.parent_redemption.id)
    expect((await engine.loyalties.getMember(null, card.id)).loyalty_card).toMatchObject({ balance: 500 })
  })
})
