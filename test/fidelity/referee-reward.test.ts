import { describe, expect, it } from 'vitest'
import { program } from '../operations/loyalty/fixtures'
import { snapshot, testEngine } from '../support/engine'

/** A loyalty program and a gift campaign, and a referral program rewarding its referee with one of them. */
async function setup(reward: 'LOYALTY_CARD' | 'GIFT_VOUCHER', amount: string | number) {
  const t = testEngine()
  const club = await program(t.engine)
  const gifts = await t.engine.campaigns.create({
    name: 'Gift cards',
    campaign_type: 'GIFT_VOUCHERS',
    vouchers_count: 1,
    voucher: { type: 'GIFT_VOUCHER', gift: { amount: 0 } },
  })
  const parent = reward === 'LOYALTY_CARD' ? club : gifts
  const referral = await t.engine.campaigns.create({
    name: 'Refer a friend',
    campaign_type: 'REFERRAL_PROGRAM',
    vouchers_count: 1,
    voucher: { discount: { type: 'AMOUNT', amount_off: 1000 }, code_config: { pattern: 'REF-####' } },
    referral_program: {
      conversion_event_type: 'redemption',
      referee_reward: { related_object_parent: { id: parent.id, object: 'CAMPAIGN' }, type: reward, amount },
    },
  })
  const published = await t.engine.referrals.publish('Refer a friend', { customer: { source_id: 'alice' } })
  const code = published.voucher?.code ?? ''
  const redeem = () =>
    t.engine.redemptions.redeemStackable({
      customer: { source_id: 'bob' },
      order: { amount: 5000 },
      redeemables: [{ object: 'voucher', id: code }],
    })
  return { ...t, club, gifts, referral, code, redeem }
}

describe('double-sided referral programs reward the referee', () => {
  it('LOYALTY_CARD "150": bob joins the program and gets 150 points in the redemption commit; a rollback takes them back', async () => {
    const { engine, store, club, redeem, referral } = await setup('LOYALTY_CARD', '150')
    expect(referral.referral_program?.referee_reward).toEqual({
      related_object_parent: { id: club.id, object: 'CAMPAIGN' },
      type: 'LOYALTY_CARD',
      amount: '150',
    })
    const redeemed = await redeem()
    const bob = await engine.customers.get('bob')
    const card = (await store.vouchers.list({ where: { campaign_id: club.id, holder_id: bob.id } })).data[0]?.value
    expect(card?.loyalty_card).toMatchObject({ points: 150, balance: 150 })
    const added = await engine.customers.listActivity('bob', { type: 'customer.voucher.loyalty_card.points_added' })
    expect(added.data).toHaveLength(1)
    expect(added.data[0]?.data).toMatchObject({ points: 150, balance: 150, referral: { campaign_id: referral.id } })
    // Bookkeeping for the rollback, not on the wire.
    expect(redeemed.redemptions[0]).not.toHaveProperty('referee_credit')
    await engine.redemptions.rollbackStackable(redeemed.parent_redemption.id)
    const after = (await store.vouchers.get(card?.id ?? ''))?.value
    expect(after?.loyalty_card).toMatchObject({ points: 150, balance: 0, subtracted_points: 150 })
  })

  it('GIFT_VOUCHER 2500: bob is published a gift card credited 2500; a rollback takes the credits back', async () => {
    const { engine, store, gifts, redeem } = await setup('GIFT_VOUCHER', 2500)
    const redeemed = await redeem()
    const bob = await engine.customers.get('bob')
    const card = (await store.vouchers.list({ where: { campaign_id: gifts.id, holder_id: bob.id } })).data[0]?.value
    expect(card?.gift).toEqual({ amount: 2500, subtracted_amount: 0, balance: 2500 })
    const added = await engine.customers.listActivity('bob', { type: 'customer.voucher.gift.balance_added' })
    expect(added.data[0]?.data).toMatchObject({ amount: 2500 })
    await engine.redemptions.rollbackStackable(redeemed.parent_redemption.id)
    // OpenAPI `Gift`: `amount` is the "total gift card income over the lifetime of the card",
    // `subtracted_amount` the "total amount of subtracted credits": the credit taken back is subtracted.
    expect((await store.vouchers.get(card?.id ?? ''))?.value.gift).toEqual({
      amount: 2500,
      subtracted_amount: 2500,
      balance: 0,
    })
    // The credit and its removal are the card's transactions (docs/behaviour.md#card-transactions).
    const exp = await engine.exports.createCampaignTransactionsExport(gifts.id, {
      order: 'created_at',
      parameters: { fields: ['voucher_id', 'type', 'amount', 'balance'] },
    })
    await engine.asyncActions.runPending()
    const file = await engine.files.get((await engine.exports.get(exp.id)).result?.url ?? '')
    expect(file.content).toBe(
      `voucher_id,type,amount,balance\r\n${card?.id},CREDITS_ADDITION,2500,2500\r\n${card?.id},CREDITS_REMOVAL,-2500,0\r\n`,
    )
  })

  it('the referrer is not credited, and a second redemption by the same referee credits nothing more', async () => {
    const { engine, store, club, redeem } = await setup('LOYALTY_CARD', '150')
    await redeem()
    await redeem()
    const alice = await engine.customers.get('alice')
    const bob = await engine.customers.get('bob')
    const held = (id: string) => store.vouchers.list({ where: { campaign_id: club.id, holder_id: id } })
    expect((await held(alice.id)).data).toHaveLength(0)
    expect((await held(bob.id)).data[0]?.value.loyalty_card?.balance).toBe(150)
  })

  it.each([
    [{ related_object_parent: { id: 'camp_nope' }, type: 'LOYALTY_CARD', amount: '1' }, 404],
    [{ related_object_parent: { id: 'GIFTS' }, type: 'LOYALTY_CARD', amount: '1' }, 400],
    [{ related_object_parent: { id: 'GIFTS' }, type: 'GIFT_VOUCHER', amount: '0' }, 400],
    [{ related_object_parent: { id: 'GIFTS' }, type: 'GIFT_VOUCHER', amount: '1.5' }, 400],
    [{ related_object_parent: { id: 'GIFTS' }, type: 'COUPON', amount: '1' }, 400],
  ])('refuses referee_reward %o with %i and writes nothing', async (reward, code) => {
    const { engine, store } = testEngine()
    await engine.campaigns.create({
      name: 'GIFTS',
      campaign_type: 'GIFT_VOUCHERS',
      voucher: { type: 'GIFT_VOUCHER', gift: { amount: 0 } },
    })
    const before = await snapshot(store)
    await expect(
      engine.raw.campaigns.create({
        name: 'R',
        campaign_type: 'REFERRAL_PROGRAM',
        voucher: { discount: { type: 'AMOUNT', amount_off: 1 } },
        referral_program: { referee_reward: reward },
      }),
    ).rejects.toMatchObject({ code })
    expect(await snapshot(store)).toBe(before)
  })
})
