/**
 * Rule-name resolution: which value of the evaluation context a rule name reads. Order, customer,
 * redemption and budget rules read one value (`VALUE_RULES`); line rules read one order line
 * (`ITEM_RULES`); item quantifiers (`order.items.any`, …) and the legacy `product.id` / `sku.id`
 * are decided by the evaluator over the lines.
 */
import type { RuleDefinition } from '../../model/validation-rule'
import type { EvalCounters, EvaluationContext, PeriodCounts } from './evaluation-context'
import { amountOf, type IndexedItem, itemMetadata, quantityOf, readMetadata, unitPriceOf } from './items'

/** The line a nested item rule is looking at, and the lines grouped with it for aggregates. */
export interface ItemScope {
  line: IndexedItem
  group: readonly IndexedItem[]
}

export type Resolved = { actual: unknown } | { missing: 'customer' | 'property' }

const PERIODS = ['daily', 'weekly', 'monthly'] as const
type Period = 'total' | (typeof PERIODS)[number]

function count(counts: PeriodCounts | undefined, period: Period): number {
  return counts?.[period] ?? 0
}

function counters(ctx: EvaluationContext): EvalCounters {
  return ctx.counters ?? {}
}

function withCustomer(
  ctx: EvaluationContext,
  read: (c: NonNullable<EvaluationContext['customer']>) => unknown,
): Resolved {
  return ctx.customer === null ? { missing: 'customer' } : { actual: read(ctx.customer) }
}

function withProperty(def: RuleDefinition, read: (property: string) => Resolved): Resolved {
  return def.property == null || def.property === '' ? { missing: 'property' } : read(def.property)
}

/**
 * Rules answered by one value of the context. Budget counters are the stored totals plus this
 * redemption (see `EvalCounters`).
 */
export const VALUE_RULES: Record<string, (ctx: EvaluationContext, def: RuleDefinition) => Resolved> = {
  'customer.segment': (ctx) => withCustomer(ctx, (c) => [...c.segments]),
  'customer.metadata': (ctx, def) => withProperty(def, (p) => withCustomer(ctx, (c) => readMetadata(c.metadata, p))),
  'customer.loyalty.tier': (ctx) => withCustomer(ctx, (c) => [...(c.loyalty_tiers ?? [])]),
  'order.amount': (ctx) => ({ actual: ctx.order.amount ?? null }),
  // Before this redeemable's discount is known the operation layer may pass no total: then the
  // running amount stands in for it.
  'order.total_amount': (ctx) => ({ actual: ctx.order.total_amount ?? ctx.order.amount ?? null }),
  'order.initial_amount': (ctx) => ({ actual: ctx.order.initial_amount ?? ctx.order.amount ?? null }),
  'order.items.count': (ctx) => ({ actual: ctx.order.items?.length ?? 0 }),
  'order.metadata': (ctx, def) => withProperty(def, (p) => ({ actual: readMetadata(ctx.order.metadata, p) })),
  'campaign.orders.amount': (ctx) => ({
    actual: (counters(ctx).campaign_orders_amount ?? 0) + (ctx.order.initial_amount ?? ctx.order.amount ?? 0),
  }),
  'campaign.orders.amount_discounted': (ctx) => ({
    actual: (counters(ctx).campaign_orders_amount_discounted ?? 0) + (ctx.redemption?.discount_amount ?? 0),
  }),
  'redemption.gift.amount': (ctx) => ({ actual: ctx.redemption?.gift_credits ?? 0 }),
  'redemption.reward.pay_with_points.points_used': (ctx) => ({ actual: ctx.redemption?.points_used ?? 0 }),
  'redemption.metadata': (ctx, def) =>
    withProperty(def, (p) => ({ actual: readMetadata(ctx.redemption?.metadata, p) })),
  'custom_event.metadata': (ctx, def) =>
    withProperty(def, (p) => ({ actual: readMetadata(ctx.custom_event?.metadata, p) })),
  'publication.redeemable_by_linked_customer': (ctx) =>
    withCustomer(ctx, (c) => {
      const holderId = ctx.publication?.holder_id ?? null
      const holderSource = ctx.publication?.holder_source_id ?? null
      return (holderId !== null && holderId === c.id) || (holderSource !== null && holderSource === c.source_id)
    }),
}

for (const period of ['total', ...PERIODS] as const) {
  const suffix = period === 'total' ? '' : `.${period}`
  VALUE_RULES[`campaign.redemptions.count${suffix}`] = (ctx) => ({
    actual: count(counters(ctx).campaign_redemptions, period) + 1,
  })
  VALUE_RULES[`campaign.redemptions.customers_count${suffix}`] = (ctx) => {
    const c = counters(ctx)
    const isNew = ctx.customer !== null && count(c.customer_campaign_redemptions, period) === 0
    return { actual: count(c.campaign_customers, period) + (isNew ? 1 : 0) }
  }
  VALUE_RULES[`redemption.count.per_customer${suffix}`] = (ctx) =>
    withCustomer(ctx, () => count(counters(ctx).customer_redemptions, period) + 1)
  if (period !== 'total') {
    VALUE_RULES[`redemption.count.${period}`] = (ctx) => ({ actual: count(counters(ctx).redemptions, period) + 1 })
  }
}

/** Values of one order line, for nested item rules and the legacy product / SKU rules. */
export const ITEM_RULES: Record<string, (scope: ItemScope, property: string | null) => unknown> = {
  'order.items.quantity': (s) => quantityOf(s.line.item),
  'order.items.aggregated_quantity': (s) => s.group.reduce((n, l) => n + quantityOf(l.item), 0),
  'order.items.price': (s) => unitPriceOf(s.line.item),
  'order.items.amount': (s) => amountOf(s.line.item),
  'order.items.aggregated_amount': (s) => s.group.reduce((n, l) => n + amountOf(l.item), 0),
  'order.items.metadata': (s, p) => (p === null ? undefined : itemMetadata(s.line.item, p)),
  'product.price': (s) => s.line.item.product?.price ?? unitPriceOf(s.line.item),
  'product.quantity': (s) => quantityOf(s.line.item),
  'product.metadata': (s, p) =>
    p === null ? undefined : (readMetadata(s.line.item.product?.metadata, p) ?? itemMetadata(s.line.item, p)),
  'sku.price': (s) => s.line.item.sku?.price ?? unitPriceOf(s.line.item),
  'sku.quantity': (s) => quantityOf(s.line.item),
}

export const NEEDS_PROPERTY = new Set(['order.items.metadata', 'product.metadata'])

/** Rule names of docs/concepts.md#rule-names that this context cannot answer (no API keys, users, flags). */
export const UNSUPPORTED = new Set([
  'product.discount_applicable',
  'sku.discount_applicable',
  'product.metadata.aggregated_quantity',
  'product.metadata.aggregated_amount',
  'product.metadata.discount_applicable',
  'product.metadata.match_all',
  'redemption.api_key',
  'redemption.count.per_api_key',
  'redemption.user.login',
  'redemption.count.per_user',
])

export const ITEM_QUANTIFIERS = ['every', 'any', 'none', 'cheapest', 'most_expensive'] as const
export type ItemQuantifier = (typeof ITEM_QUANTIFIERS)[number]

/** The rule names this engine answers (value rules, line rules and item quantifiers). */
export const SUPPORTED_RULE_NAMES: readonly string[] = [
  ...Object.keys(VALUE_RULES),
  ...Object.keys(ITEM_RULES),
  'order.items.price_any',
  'order.items.price_each',
  'order.items.metadata_any',
  'order.items.metadata_each',
  'product.id',
  'sku.id',
  ...ITEM_QUANTIFIERS.map((q) => `order.items.${q}`),
].sort()
