/**
 * A validation rule's `applicable_to` as the discount calculation takes it (`DiscountTargeting`).
 * Product and SKU entries pass through. A `products_collection` entry is replaced by one entry per
 * member product and SKU, each carrying the collection's effect and per-line settings, because the
 * discount calculation matches lines by product / SKU id only. A collection whose members are not
 * given is kept as is, so nothing is silently dropped.
 *
 * Caveat: `aggregated_quantity_limit` / `aggregated_amount_limit` on a collection entry become
 * per-member limits after expansion; pass `expandCollections: false` to keep collection entries for
 * a calculation that resolves them itself.
 */
import type { DiscountTargeting } from '../../model/discount'
import type { ApplicableTo, ApplicableToEntry } from '../../model/validation-rule'
import type { EvalCollection } from './evaluation-context'

export interface TargetingOptions {
  expandCollections?: boolean
}

function expand(
  entries: readonly ApplicableToEntry[] | undefined,
  collections: Readonly<Record<string, EvalCollection>>,
  enabled: boolean,
): ApplicableToEntry[] {
  return (entries ?? []).flatMap((entry): ApplicableToEntry[] => {
    if (!enabled || entry.object !== 'products_collection') return [entry]
    const members = collections[entry.id]
    if (members === undefined) return [entry]
    const { source_id: _source, product_id: _product, product_source_id: _productSource, ...settings } = entry
    return [
      ...members.products.map((id): ApplicableToEntry => ({ ...settings, object: 'product', id })),
      ...members.skus.map((id): ApplicableToEntry => ({ ...settings, object: 'sku', id })),
    ]
  })
}

export function toDiscountTargeting(
  applicableTo: ApplicableTo | null | undefined,
  collections: Readonly<Record<string, EvalCollection>> = {},
  options: TargetingOptions = {},
): DiscountTargeting {
  const enabled = options.expandCollections ?? true
  const targeting: DiscountTargeting = {}
  if (applicableTo == null) return targeting
  if (applicableTo.included !== undefined) targeting.included = expand(applicableTo.included, collections, enabled)
  if (applicableTo.excluded !== undefined) targeting.excluded = expand(applicableTo.excluded, collections, enabled)
  if (applicableTo.included_all !== undefined) targeting.included_all = applicableTo.included_all
  return targeting
}
