import type { Engine } from '../../src/engine'

/**
 * A referrer (`alice`) holding one referral code in each of `programs` referral programs, each code
 * redeemed by `referees` distinct customers (each conversion a `customer.referred` activity naming
 * alice). The store-cost tests read alice with few and with many of both: her reads must not change.
 */
export async function seedReferrer(engine: Engine, programs: number, referees: number): Promise<void> {
  for (let p = 0; p < programs; p++) {
    const name = `REF${p}`
    await engine.campaigns.create({
      name,
      campaign_type: 'REFERRAL_PROGRAM',
      type: 'AUTO_UPDATE',
      voucher: { discount: { type: 'AMOUNT', amount_off: 100 }, code_config: { pattern: `${name}-####` } },
      referral_program: { conversion_event_type: 'redemption' },
    })
    const code = (await engine.referrals.publish(name, { customer: { source_id: 'alice' } })).voucher?.code ?? ''
    for (let r = 0; r < referees; r++) {
      await engine.redemptions.redeemStackable({
        customer: { source_id: `friend-${p}-${r}` },
        order: { amount: 5000 },
        redeemables: [{ object: 'voucher', id: code }],
      })
    }
  }
}
