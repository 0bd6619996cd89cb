import type {
  AmountDiscount,
  AmountEffect,
  Discount,
  FixedDiscount,
  FixedEffect,
  PercentDiscount,
  PercentEffect,
  UnitDiscount,
  UnitEffect,
  UnitManyDiscount,
} from '../../model/discount'
import type { ApplicableTo } from '../../model/validation-rule'
import { hasTargetEntries } from './target-lines'

/** A discount with its effect decided: the one it names, or the docs/concepts.md#types-and-effects default. */
export type ResolvedEffect =
  | { type: 'AMOUNT'; discount: AmountDiscount; effect: AmountEffect }
  | { type: 'PERCENT'; discount: PercentDiscount; effect: PercentEffect }
  | { type: 'FIXED'; discount: FixedDiscount; effect: FixedEffect }
  | { type: 'UNIT'; discount: UnitDiscount | UnitManyDiscount; effect: UnitEffect | 'ADD_MANY_ITEMS' }

/**
 * AMOUNT and PERCENT default to APPLY_TO_ITEMS when the rule names products (included or excluded),
 * else APPLY_TO_ORDER; UNIT to ADD_MISSING_ITEMS. FIXED follows the AMOUNT rule (the interface names
 * no default for it; a new price for named products is a per-unit price).
 */
export function resolveEffect(discount: Discount, applicableTo: ApplicableTo | undefined): ResolvedEffect {
  const byTargets = hasTargetEntries(applicableTo) ? 'APPLY_TO_ITEMS' : 'APPLY_TO_ORDER'
  switch (discount.type) {
    case 'AMOUNT':
      return { type: 'AMOUNT', discount, effect: discount.effect ?? byTargets }
    case 'PERCENT':
      return { type: 'PERCENT', discount, effect: discount.effect ?? byTargets }
    case 'FIXED':
      return { type: 'FIXED', discount, effect: discount.effect ?? byTargets }
    case 'UNIT':
      return { type: 'UNIT', discount, effect: discount.effect ?? 'ADD_MISSING_ITEMS' }
    default: {
      const _never: never = discount
      return _never
    }
  }
}

/** Does the effect discount lines (and so need targeting), rather than the order as a whole? */
export function isItemEffect(resolved: ResolvedEffect): boolean {
  switch (resolved.type) {
    case 'AMOUNT':
    case 'PERCENT':
    case 'FIXED':
      return resolved.effect !== 'APPLY_TO_ORDER'
    case 'UNIT':
      return false
    default: {
      const _never: never = resolved
      return _never
    }
  }
}
