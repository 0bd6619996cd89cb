import { createEngine } from '../../src'

const engine = createEngine()
await engine.vouchers.create({
  code: 'LAST-ONE',
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'PERCENT', percent_off: 10 },
  redemption: { quantity: 1 },
})
const request = (source_id: string) => ({
  customer: { source_id },
  order: { items: [{ source_id: 'jacket', price: 20000, quantity: 1 }] },
  redeemables: [{ object: 'voucher', id: 'LAST-ONE' }],
})

// Kim validates at the start of her checkout and locks the code's only use.
const kim = await engine.validations.validateStackable({ ...request('kim'), session: { type: 'LOCK' } })
// Meanwhile Lee cannot take it: the locked use counts as taken.
const lee = await engine.validations.validateStackable(request('lee'))
// Kim redeems with her session key, which spends the locked use and releases the lock.
const paid = await engine.redemptions.redeemStackable({ ...request('kim'), session: kim.session })
const refused = lee.inapplicable_redeemables[0]?.result ?? {}
const key = 'error' in refused ? refused.error.key : undefined
console.log(kim.valid, key, paid.parent_redemption.result) // true quantity_exceeded SUCCESS
