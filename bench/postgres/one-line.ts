/*
 * The one-line redemption the PostgreSQL benches time: a code taking 100 off the order, redeemed by
 * one customer for a one-line order of 10,000 (minor units).
 */

/** The code's definition (`vouchers.create` without its `code`). */
export const AMOUNT_OFF = {
  type: 'DISCOUNT_VOUCHER',
  discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
} as const

/** The body of `redemptions.redeemStackable` for the code and the customer's source id. */
export function oneLineRedemption(code: string, sourceId: string) {
  return {
    redeemables: [{ object: 'voucher' as const, id: code }],
    order: { amount: 10_000, items: [{ product_id: 'p1', quantity: 1, price: 10_000 }] },
    customer: { source_id: sourceId },
  }
}
