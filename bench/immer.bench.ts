import { freeze, produce } from 'immer'
import { bench, describe } from 'vitest'
import { createEngine } from '../src/engine'
import { seededRandom } from '../src/ids'
import { freezeNew } from '../src/memory/paths'
import type { Redemption, Voucher } from '../src/model'

/**
 * Does immer earn its place for producing the next version of a stored (frozen) entity? Each case
 * makes the same next version three ways: immer's `produce` (structural sharing, auto-freeze), the
 * hand-written spreads followed by the store's `freezeNew` (against the stored version), and spreads that freeze only the objects
 * they create (what stays shared is frozen already). The entities are real ones: a voucher after a
 * redemption, and a redemption of a 100-line order. docs/design.md#immer records the verdict.
 */

/** What the memory store does to a value it commits over `previous`. */
function deepFreeze<T>(value: T, previous?: unknown): T {
  freezeNew(value, previous, new Set())
  return value
}

const NOW = new Date('2026-11-22T12:00:00.000Z')
const LATER = '2026-11-22T12:05:00.000Z'
const engine = createEngine({ clock: { now: () => NOW }, random: seededRandom(3) })

await engine.vouchers.create({
  code: 'BENCH10',
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ITEMS' },
  redemption: { quantity: 1000 },
})
const items = Array.from({ length: 100 }, (_, i) => ({ source_id: `sku-${i}`, price: 1000 + i, quantity: 1 + (i % 3) }))
const redeemed = await engine.redemptions.redeemStackable({
  customer: { source_id: 'bench-customer' },
  order: { items },
  redeemables: [{ object: 'voucher', id: 'BENCH10' }],
})
const voucher: Voucher = deepFreeze(await engine.vouchers.get('BENCH10'))
const child = redeemed.redemptions[0]
if (child === undefined) throw new Error('the bench redemption redeemed nothing')
const redemption: Redemption = deepFreeze(structuredClone(child as Redemption))

describe('next voucher version: one more use', () => {
  bench('immer produce', () => {
    produce(voucher, (draft) => {
      draft.redemption.redeemed_quantity += 1
      draft.updated_at = LATER
    })
  })
  bench('spreads + deepFreeze', () => {
    deepFreeze(
      {
        ...voucher,
        redemption: { ...voucher.redemption, redeemed_quantity: voucher.redemption.redeemed_quantity + 1 },
        updated_at: LATER,
      },
      voucher,
    )
  })
  bench('spreads + freeze of the new objects only', () => {
    Object.freeze({
      ...voucher,
      redemption: Object.freeze({
        ...voucher.redemption,
        redeemed_quantity: voucher.redemption.redeemed_quantity + 1,
      }),
      updated_at: LATER,
    })
  })
})

describe('next redemption version: rolled back (100-line order shared)', () => {
  bench('immer produce', () => {
    produce(redemption, (draft) => {
      draft.status = 'ROLLED_BACK'
    })
  })
  bench('spreads + deepFreeze', () => {
    deepFreeze({ ...redemption, status: 'ROLLED_BACK' }, redemption)
  })
  bench('spreads + freeze of the new object only', () => {
    Object.freeze({ ...redemption, status: 'ROLLED_BACK' })
  })
})

describe('next redemption version: every line of the 100-line order changed', () => {
  const order = redemption.order
  if (!order) throw new Error('the bench redemption has no order')
  bench('immer produce', () => {
    produce(redemption, (draft) => {
      for (const item of draft.order?.items ?? []) item.discount_amount = 0
    })
  })
  bench('spreads + deepFreeze', () => {
    deepFreeze({
      ...redemption,
      order: { ...order, items: order.items.map((item) => ({ ...item, discount_amount: 0 })) },
    })
  })
  bench('spreads + freeze of the new objects only', () => {
    Object.freeze({
      ...redemption,
      order: Object.freeze({
        ...order,
        items: Object.freeze(order.items.map((item) => Object.freeze({ ...item, discount_amount: 0 }))),
      }),
    })
  })
})

describe('freezing a new redemption with a 100-line order', () => {
  const fresh = () => structuredClone(child as Redemption)
  bench('immer freeze (deep)', () => {
    freeze(fresh(), true)
  })
  bench('deepFreeze', () => {
    deepFreeze(fresh())
  })
})
