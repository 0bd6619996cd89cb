import fc from 'fast-check'
import type { Discount } from '../../../src/model/discount'
import type { CalculatedOrder } from '../../../src/model/order'
import type { ApplicableTo, ApplicableToEntry } from '../../../src/model/validation-rule'
import { normalizeOrder, type Step } from '../../../src/rules/discounts'

export const PRODUCTS = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5']

export const itemsArb = (maxLength = 500) =>
  fc.array(
    fc.record({
      product_id: fc.constantFrom(...PRODUCTS),
      price: fc.integer({ min: 0, max: 1_000_000_000 }),
      quantity: fc.integer({ min: 1, max: 1000 }),
    }),
    // size 'max': the whole 1–maxLength range, not fast-check's default of a few elements.
    { minLength: 1, maxLength, size: 'max' },
  )

export const orderArb = (maxLength = 500) => itemsArb(maxLength).map((items) => normalizeOrder({ items }))

const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(arb, { nil: undefined })

export const entryArb = (opts: { limits: boolean; every: boolean }): fc.Arbitrary<ApplicableToEntry> =>
  fc
    .record({
      id: fc.constantFrom(...PRODUCTS),
      effect: opts.every
        ? fc.constant('APPLY_TO_EVERY' as const)
        : fc.constantFrom(
            'APPLY_TO_EVERY',
            'APPLY_TO_CHEAPEST',
            'APPLY_FROM_CHEAPEST',
            'APPLY_TO_MOST_EXPENSIVE',
            'APPLY_FROM_MOST_EXPENSIVE',
          ),
      target: opts.every ? fc.constant('ITEM' as const) : fc.constantFrom('ITEM' as const, 'UNIT' as const),
      skip_initially: opts.limits ? optional(fc.integer({ min: 0, max: 5 })) : fc.constant(undefined),
      repeat: opts.limits ? optional(fc.integer({ min: 1, max: 4 })) : fc.constant(undefined),
      quantity_limit: opts.limits ? optional(fc.integer({ min: 1, max: 50 })) : fc.constant(undefined),
      aggregated_quantity_limit: opts.limits ? optional(fc.integer({ min: 1, max: 500 })) : fc.constant(undefined),
      amount_limit: opts.limits ? optional(fc.integer({ min: 0, max: 10_000_000 })) : fc.constant(undefined),
      aggregated_amount_limit: opts.limits
        ? optional(fc.integer({ min: 0, max: 100_000_000 }))
        : fc.constant(undefined),
      price: optional(fc.integer({ min: 0, max: 1_000_000_000 })),
    })
    .map((r) => {
      const entry: ApplicableToEntry = { object: 'product', id: r.id, effect: r.effect, target: r.target }
      for (const key of [
        'skip_initially',
        'repeat',
        'quantity_limit',
        'aggregated_quantity_limit',
        'amount_limit',
        'aggregated_amount_limit',
        'price',
      ] as const) {
        const v = r[key]
        if (v !== undefined) entry[key] = v
      }
      return entry
    })

export const applicableToArb = (opts: { limits: boolean; every: boolean }): fc.Arbitrary<ApplicableTo | undefined> =>
  optional(
    fc.record({
      included: fc.array(entryArb(opts), { maxLength: 3 }),
      excluded: fc.array(entryArb(opts), { maxLength: 2 }),
      included_all: fc.boolean(),
    }),
  )

export const percentArb = fc.integer({ min: 0, max: 10000 }).map((x) => x / 100)

export const discountArb: fc.Arbitrary<Discount> = fc.oneof(
  fc.record({
    type: fc.constant('AMOUNT' as const),
    amount_off: fc.integer({ min: 0, max: 100_000_000_000 }),
    effect: fc.constantFrom(
      'APPLY_TO_ORDER' as const,
      'APPLY_TO_ITEMS' as const,
      'APPLY_TO_ITEMS_PROPORTIONALLY' as const,
      'APPLY_TO_ITEMS_PROPORTIONALLY_BY_QUANTITY' as const,
      'APPLY_TO_ITEMS_BY_QUANTITY' as const,
    ),
  }),
  fc.record({
    type: fc.constant('PERCENT' as const),
    percent_off: percentArb,
    effect: fc.constantFrom('APPLY_TO_ORDER' as const, 'APPLY_TO_ITEMS' as const),
  }),
  fc.record({
    type: fc.constant('FIXED' as const),
    fixed_amount: fc.integer({ min: 0, max: 1_000_000_000 }),
    effect: fc.constantFrom('APPLY_TO_ORDER' as const, 'APPLY_TO_ITEMS' as const),
  }),
  fc.record({
    type: fc.constant('UNIT' as const),
    unit_off: fc.integer({ min: 0, max: 20 }),
    unit_type: fc.constantFrom(...PRODUCTS, 'new_product'),
    effect: fc.constantFrom('ADD_MISSING_ITEMS' as const, 'ADD_NEW_ITEMS' as const),
  }),
)

export const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc
      .record({
        discount: discountArb,
        applicable_to: applicableToArb({ limits: true, every: false }),
        bundleMultiplier: optional(fc.integer({ min: 0, max: 5 })),
        calculationMode: optional(fc.constantFrom('DISCOUNTED_AMOUNT' as const, 'INITIAL_AMOUNT' as const)),
      })
      .map((r) => {
        const step: Step = { kind: 'discount', discount: r.discount }
        if (r.applicable_to !== undefined) step.applicable_to = r.applicable_to
        if (r.bundleMultiplier !== undefined) step.bundleMultiplier = r.bundleMultiplier
        if (r.calculationMode !== undefined) step.calculationMode = r.calculationMode
        return step
      }),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 0, max: 100_000_000_000 }).map((amount): Step => ({ kind: 'credit', amount })),
  },
)

/** The invariants every calculated order keeps. */
export function checkOrder(order: CalculatedOrder): void {
  let items = 0
  let applied = 0
  for (const item of order.items) {
    if (item.discount_amount < 0 || item.discount_amount > item.amount)
      throw new Error(`line discount ${item.discount_amount} > ${item.amount}`)
    if (item.subtotal_amount !== item.amount - item.discount_amount) throw new Error('subtotal')
    if (item.amount !== item.price * item.quantity) throw new Error('amount = price × quantity')
    if (item.discount_quantity > item.quantity) throw new Error('discount_quantity')
    items += item.discount_amount
    applied += item.applied_discount_amount
  }
  if (items !== order.items_discount_amount) throw new Error(`Σ items ${items} ≠ ${order.items_discount_amount}`)
  if (applied !== order.items_applied_discount_amount) throw new Error('Σ applied items')
  if (order.total_discount_amount !== order.discount_amount + order.items_discount_amount)
    throw new Error('total discount')
  if (order.total_amount !== order.amount - order.total_discount_amount) {
    throw new Error(`total ${order.total_amount} ≠ ${order.amount} − ${order.total_discount_amount}`)
  }
  if (order.total_amount < 0) throw new Error('negative total')
  if (order.total_applied_discount_amount !== order.applied_discount_amount + order.items_applied_discount_amount) {
    throw new Error('total applied')
  }
}

export function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}
