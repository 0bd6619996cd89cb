import type { PromotionTier } from '../../model/promotion'
import type { Voucher } from '../../model/voucher'
import type { Stored } from '../../storage/ports'

/**
 * What the first level of a validation's or redemption's reads found last time, per engine
 * (docs/postgres.md#loads): the ids its second level is read by almost never change, so the second
 * level can start with the first, keyed on these. Never a source of truth: the reads started from
 * hints are used only when the keys computed from what level 1 answers are the same, and otherwise
 * dropped. Bounded: beyond `capacity` entries of a kind, the oldest goes.
 */
export interface LoadHints {
  /** A requested code or tier (`voucher:<code or id>`, `promotion_tier:<id>`): what level 1 found for it. */
  readonly redeemables: Map<string, { voucher?: Stored<Voucher>; tier?: Stored<PromotionTier> }>
  /** A request's customer (`id:<id or source_id>`, `source_id:<source_id>`): the id it was found under. */
  readonly customers: Map<string, string>
  /** The redeemables and campaigns whose rule assignments were read (ids joined): the rules those named. */
  readonly rules: Map<string, string[]>
  /** An order line naming its product or SKU by `source_id` (its naming fields joined): the ids it resolved to. */
  readonly lines: Map<string, { product_id: string | null; sku_id: string | null }>
  readonly capacity: number
}

/** A thousand of each kind: a shop's busy codes and returning customers; a stored code is a kilobyte or two, so a few MB at most. */
export const DEFAULT_LOAD_HINTS = 1000

export function loadHints(capacity: number): LoadHints {
  return { redeemables: new Map(), customers: new Map(), rules: new Map(), lines: new Map(), capacity }
}

/** Keeps `value` under `key`, the oldest entry going when the map is full. */
export function remember<V>(map: Map<string, V>, key: string, value: V, capacity: number): void {
  if (capacity <= 0) return
  if (map.size >= capacity && !map.has(key)) {
    const oldest = map.keys().next()
    if (!oldest.done) map.delete(oldest.value)
  }
  map.set(key, value)
}

/**
 * A customer this engine just created, remembered as level 1 would have found them: their next
 * request (a redemption after the one that created them) starts level 2 with level 1.
 */
export function rememberCreatedCustomer(hints: LoadHints, sourceId: string, id: string): void {
  remember(hints.customers, `source_id:${sourceId}`, id, hints.capacity)
}
