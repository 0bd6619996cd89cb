import type { Customer, CustomerSummary } from '../../model/customer'
import type { Discount } from '../../model/discount'
import type { Publication } from '../../model/publication'
import type { Redemption } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import type { Store } from '../../storage/ports'
import { readCustomerSummary } from '../shop/summary-counters'

/*
 * The columns of `POST /v1/exports` that are not fields of the stored object but the hosted service
 * computes from it (its OpenAPI `Export*Fields` lists and the endpoint's "Defaults" table,
 * docs/behaviour.md#exports): a voucher's `voucher_type` and `value`, a publication's `voucher_code`,
 * a redemption's `order_amount`, a customer's summary figures. Some need other objects (a
 * publication's voucher, a customer's summary): those are read once per page, by id, and only when a
 * column asks for them.
 */

/** What the computed columns of one page read besides the page: by id, only what its columns need. */
export interface PageLookups {
  vouchers: ReadonlyMap<string, Voucher>
  customers: ReadonlyMap<string, Customer>
  summaries: ReadonlyMap<string, CustomerSummary>
}

type Need = 'voucher' | 'customer' | 'summary'

interface Column<E> {
  needs?: Need
  value: (entity: E, lookups: PageLookups) => unknown
}

/** A discount's own value, as the hosted voucher export's `value` gives it for a discount code. */
function discountValue(d: Discount): number | null {
  switch (d.type) {
    case 'AMOUNT':
      return d.amount_off
    case 'PERCENT':
      return d.percent_off
    case 'FIXED':
      return d.fixed_amount
    case 'UNIT':
      return 'unit_off' in d ? d.unit_off : null
    default: {
      const _never: never = d
      return _never
    }
  }
}

function discountFormula(d: Discount): string | null {
  switch (d.type) {
    case 'AMOUNT':
      return d.amount_off_formula ?? null
    case 'PERCENT':
      return d.percent_off_formula ?? null
    case 'FIXED':
      return d.fixed_amount_formula ?? null
    case 'UNIT':
      return 'unit_off' in d ? (d.unit_off_formula ?? null) : null
    default: {
      const _never: never = d
      return _never
    }
  }
}

const VOUCHER_COLUMNS: Record<string, Column<Voucher>> = {
  voucher_type: { value: (v) => v.type },
  // A discount code's amount, percent or units; a gift card's credits left; a loyalty card's points.
  value: {
    value: (v) =>
      v.type === 'GIFT_VOUCHER'
        ? (v.gift?.balance ?? null)
        : v.type === 'LOYALTY_CARD'
          ? (v.loyalty_card?.balance ?? null)
          : v.discount
            ? discountValue(v.discount)
            : null,
  },
  formula: { value: (v) => (v.discount ? discountFormula(v.discount) : null) },
  discount_type: { value: (v) => v.discount?.type ?? null },
  gift_balance: { value: (v) => v.gift?.balance ?? null },
  loyalty_balance: { value: (v) => v.loyalty_card?.balance ?? null },
  redemption_quantity: { value: (v) => v.redemption.quantity },
  redemption_count: { value: (v) => v.redemption.redeemed_quantity },
  qr_code: { value: (v) => v.assets?.qr?.url ?? null },
  bar_code: { value: (v) => v.assets?.barcode?.url ?? null },
  validity_timeframe_interval: { value: (v) => v.validity_timeframe?.interval ?? null },
  validity_timeframe_duration: { value: (v) => v.validity_timeframe?.duration ?? null },
  discount_amount_limit: { value: (v) => (v.discount?.type === 'PERCENT' ? (v.discount.amount_limit ?? null) : null) },
  discount_effect: { value: (v) => v.discount?.effect ?? null },
  discount_unit_type: { value: (v) => (v.discount && 'unit_type' in v.discount ? v.discount.unit_type : null) },
  discount_unit_effect: { value: (v) => (v.discount?.type === 'UNIT' ? (v.discount.effect ?? null) : null) },
  customer_id: { value: (v) => v.holder_id ?? null },
  customer_source_id: {
    needs: 'customer',
    value: (v, l) => (v.holder_id ? (l.customers.get(v.holder_id)?.source_id ?? null) : null),
  },
}

const voucherCode: Column<Publication> = {
  needs: 'voucher',
  value: (p, l) => l.vouchers.get(p.voucher_id)?.code ?? null,
}

const PUBLICATION_COLUMNS: Record<string, Column<Publication>> = {
  voucher_code: voucherCode,
  // The hosted default list names the code `code`; its field list `voucher_code`.
  code: voucherCode,
  date: { value: (p) => p.created_at },
  campaign: { needs: 'voucher', value: (p, l) => l.vouchers.get(p.voucher_id)?.campaign ?? null },
  customer_source_id: {
    needs: 'customer',
    value: (p, l) => l.customers.get(p.customer_id)?.source_id ?? null,
  },
}

/** The redemption's voucher or promotion tier as stored with it (typed loosely in the model). */
const voucherOf = (r: Redemption) => r.voucher as Pick<Voucher, 'code' | 'campaign'> | undefined

const REDEMPTION_COLUMNS: Record<string, Column<Redemption>> = {
  voucher_code: { value: (r) => voucherOf(r)?.code ?? null },
  campaign: { value: (r) => voucherOf(r)?.campaign ?? null },
  promotion_tier_id: { value: (r) => (r.related_object_type === 'promotion_tier' ? r.related_object_id : null) },
  customer_source_id: { value: (r) => r.customer?.source_id ?? null },
  customer_name: { value: (r) => r.customer?.name ?? null },
  order_id: { value: (r) => r.order?.id ?? null },
  // Before discounts, as the hosted definition says.
  order_amount: { value: (r) => r.order?.amount ?? null },
  gift_amount: { value: (r) => r.gift?.amount ?? null },
  loyalty_points: { value: (r) => r.loyalty_card?.points ?? null },
}

const summaryColumn = (f: (s: CustomerSummary) => unknown): Column<Customer> => ({
  needs: 'summary',
  value: (c, l) => {
    const s = l.summaries.get(c.id)
    return s ? f(s) : null
  },
})

const CUSTOMER_COLUMNS: Record<string, Column<Customer>> = {
  address_city: { value: (c) => c.address?.city ?? null },
  address_state: { value: (c) => c.address?.state ?? null },
  address_line_1: { value: (c) => c.address?.line_1 ?? null },
  address_line_2: { value: (c) => c.address?.line_2 ?? null },
  address_country: { value: (c) => c.address?.country ?? null },
  address_postal_code: { value: (c) => c.address?.postal_code ?? null },
  birthday: { value: (c) => c.birthdate ?? null },
  redemptions_total_redeemed: summaryColumn((s) => s.redemptions.total_redeemed),
  redemptions_total_failed: summaryColumn((s) => s.redemptions.total_failed),
  redemptions_total_succeeded: summaryColumn((s) => s.redemptions.total_succeeded),
  redemptions_total_rolled_back: summaryColumn((s) => s.redemptions.total_rolled_back),
  redemptions_total_rollback_failed: summaryColumn((s) => s.redemptions.total_rollback_failed),
  redemptions_total_rollback_succeeded: summaryColumn((s) => s.redemptions.total_rollback_succeeded),
  orders_total_amount: summaryColumn((s) => s.orders.total_amount),
  orders_total_count: summaryColumn((s) => s.orders.total_count),
  orders_average_amount: summaryColumn((s) => s.orders.average_amount),
  orders_last_order_amount: summaryColumn((s) => s.orders.last_order_amount),
  orders_last_order_date: summaryColumn((s) => s.orders.last_order_date),
  loyalty_points: summaryColumn((s) => s.redemptions.loyalty_card.points_to_go),
}

/** The computed columns of each exported object. */
export const COMPUTED_COLUMNS: Record<string, Record<string, Column<never>>> = {
  voucher: VOUCHER_COLUMNS,
  publication: PUBLICATION_COLUMNS,
  redemption: REDEMPTION_COLUMNS,
  customer: CUSTOMER_COLUMNS,
  order: {},
}

/** The computed column named by a field (its first segment), if it is one. */
export function computedColumn(object: string, field: string): Column<unknown> | undefined {
  return COMPUTED_COLUMNS[object]?.[field] as Column<unknown> | undefined
}

/**
 * Reads what the computed columns among `fields` need for one page, by id and in batches: the
 * vouchers publications name, the customers vouchers and publications name, the summaries of the
 * customers exported.
 */
export async function pageLookups(
  store: Store,
  object: string,
  fields: readonly string[],
  page: readonly unknown[],
): Promise<PageLookups> {
  const needs = new Set(fields.map((f) => computedColumn(object, f)?.needs).filter((n) => n !== undefined))
  const vouchers = new Map<string, Voucher>()
  const customers = new Map<string, Customer>()
  const summaries = new Map<string, CustomerSummary>()
  if (needs.has('voucher')) {
    const ids = [...new Set((page as Publication[]).map((p) => p.voucher_id))]
    for (const { value } of await store.vouchers.getMany(ids)) vouchers.set(value.id, value)
  }
  if (needs.has('customer')) {
    const ids =
      object === 'voucher'
        ? (page as Voucher[]).map((v) => v.holder_id).filter((id): id is string => typeof id === 'string')
        : (page as Publication[]).map((p) => p.customer_id)
    for (const { value } of await store.customers.getMany([...new Set(ids)])) customers.set(value.id, value)
  }
  if (needs.has('summary')) {
    const read = await Promise.all(
      (page as Customer[]).map(async (c) => [c.id, await readCustomerSummary(store, c.id)] as const),
    )
    for (const [id, s] of read) summaries.set(id, s)
  }
  return { vouchers, customers, summaries }
}
