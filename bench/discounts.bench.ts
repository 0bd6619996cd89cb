import { bench, describe } from 'vitest'
import type { CalculatedOrder } from '../src/model/order'
import { divRound } from '../src/money'
import { applyStep, calculateSequence, normalizeOrder, type Step } from '../src/rules/discounts'
import { splitByWeight } from '../src/rules/discounts/caps'

/**
 * Discount calculation for 1, 5 and 30 steps over 10, 100 and 500 lines, against the floor: a
 * hand-written loop doing only the arithmetic of the 5-step / 100-line case (the same exact integer
 * rounding and largest-remainder split, `divRound` and `splitByWeight`, into flat arrays; no
 * targeting, no snapshots, no result lists).
 */

const PRODUCTS = ['p0', 'p1', 'p2', 'p3', 'p4']

function makeOrder(lines: number): CalculatedOrder {
  // Deterministic prices and quantities (no Math.random: runs compare like with like).
  const items = Array.from({ length: lines }, (_, i) => ({
    product_id: PRODUCTS[i % PRODUCTS.length] as string,
    price: 1000 + ((i * 7919) % 50000),
    quantity: 1 + ((i * 31) % 7),
  }))
  return normalizeOrder({ items })
}

/** The 5-step mix the floor reproduces: item %, proportional split, order %, per-unit amount, credit. */
const FIVE: Step[] = [
  {
    kind: 'discount',
    discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ITEMS' },
    applicable_to: {
      included: [
        { object: 'product', id: 'p0' },
        { object: 'product', id: 'p1' },
      ],
    },
  },
  { kind: 'discount', discount: { type: 'AMOUNT', amount_off: 50000, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY' } },
  { kind: 'discount', discount: { type: 'PERCENT', percent_off: 5, effect: 'APPLY_TO_ORDER' } },
  {
    kind: 'discount',
    discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' },
    applicable_to: { included: [{ object: 'product', id: 'p2' }] },
  },
  { kind: 'credit', amount: 2000 },
]

/** Other shapes, so 30 steps exercise every type: cheapest-unit percent, fixed per unit, free units. */
const MORE: Step[] = [
  {
    kind: 'discount',
    discount: { type: 'PERCENT', percent_off: 50 },
    applicable_to: {
      included: [{ object: 'product', id: 'p3', effect: 'APPLY_FROM_CHEAPEST', target: 'UNIT', repeat: 2 }],
    },
  },
  {
    kind: 'discount',
    discount: { type: 'FIXED', fixed_amount: 900, effect: 'APPLY_TO_ITEMS' },
    applicable_to: { included: [{ object: 'product', id: 'p4', quantity_limit: 2 }] },
  },
  {
    kind: 'discount',
    discount: { type: 'UNIT', unit_off: 1, unit_type: 'prod_5h1pp1ng', effect: 'ADD_MISSING_ITEMS' },
  },
  { kind: 'discount', discount: { type: 'AMOUNT', amount_off: 300, effect: 'APPLY_TO_ORDER' } },
  {
    kind: 'discount',
    discount: { type: 'AMOUNT', amount_off: 700, effect: 'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY' },
  },
]

const THIRTY: Step[] = Array.from(
  { length: 30 },
  (_, i) => (i % 2 === 0 ? FIVE[(i / 2) % 5] : MORE[(i >> 1) % 5]) as Step,
)
const STEPS: Record<number, Step[]> = { 1: FIVE.slice(0, 1), 5: FIVE, 30: THIRTY }
const TEN_PERCENT_OFF_ORDER: Step = {
  kind: 'discount',
  discount: { type: 'PERCENT', percent_off: 10, effect: 'APPLY_TO_ORDER' },
}
const options = { prices: { product: { prod_5h1pp1ng: 500 } } }

for (const lines of [10, 100, 500]) {
  const order = makeOrder(lines)
  describe(`${lines} lines`, () => {
    for (const count of [1, 5, 30]) {
      const steps = STEPS[count] as Step[]
      bench(`calculateSequence: ${count} discounts × ${lines} lines`, () => {
        calculateSequence(order, steps, options)
      })
    }
    // An order-level step on a normalised order: no line moves, so the snapshot keeps `order.items`.
    bench(`applyStep: 10% off the order × ${lines} lines`, () => {
      applyStep(order, TEN_PERCENT_OFF_ORDER, options)
    })
    if (lines === 100)
      bench('floor: 5 discounts × 100 lines, arithmetic only', () => {
        floor(order)
      })
  })
}

/** The arithmetic of FIVE over flat arrays: what the calculation cannot do without. */
function floor(order: CalculatedOrder): number {
  const n = order.items.length
  const amount = new Array<number>(n)
  const discount = new Array<number>(n).fill(0)
  const quantity = new Array<number>(n)
  const product = new Array<string>(n)
  for (let i = 0; i < n; i++) {
    const item = order.items[i] as CalculatedOrder['items'][number]
    amount[i] = item.amount
    quantity[i] = item.quantity
    product[i] = item.product_id as string
  }
  let orderDiscount = 0
  // 1. 10% of each p0/p1 line
  for (let i = 0; i < n; i++) {
    if (product[i] !== 'p0' && product[i] !== 'p1') continue
    const room = (amount[i] as number) - (discount[i] as number)
    const d = divRound(room * 10, 100, 'half-up')
    discount[i] = (discount[i] as number) + Math.min(d, room)
  }
  // 2. 50000 split over what is left of every line
  const weights = new Array<number>(n)
  for (let i = 0; i < n; i++) weights[i] = (amount[i] as number) - (discount[i] as number)
  const parts = splitByWeight(50000, weights)
  for (let i = 0; i < n; i++) discount[i] = (discount[i] as number) + (parts[i] as number)
  // 3. 5% of the running total
  let total = 0
  let items = 0
  for (let i = 0; i < n; i++) {
    total += amount[i] as number
    items += discount[i] as number
  }
  orderDiscount += divRound((total - items - orderDiscount) * 5, 100, 'half-up')
  // 4. 100 per unit of p2
  for (let i = 0; i < n; i++) {
    if (product[i] !== 'p2') continue
    const room = (amount[i] as number) - (discount[i] as number)
    const d = Math.min(100 * (quantity[i] as number), room)
    discount[i] = (discount[i] as number) + d
    items += d
  }
  // 5. credit 2000, capped at what is left
  orderDiscount += Math.min(2000, total - items - orderDiscount)
  return total - items - orderDiscount
}
