import type { StackingRules } from '../../model/stacking'
import { byPrecedence } from './category-kinds'
import type { CategoryRef } from './stacking-types'

export type CalculationMode = StackingRules['discount_calculation_mode']

/**
 * The amount a redeemable's discount is computed on (docs/concepts.md#what-each-setting-does: "Discount
 * calculation mode"): the running amount left by the previous discounts (DISCOUNTED_AMOUNT) or the order's
 * initial amount (INITIAL_AMOUNT). A category listed in `initial_amount_mode_categories` /
 * `discounted_amount_mode_categories` overrides the project mode; among several categories the first by
 * precedence with an override decides (see `byPrecedence`).
 */
export function calculationModeFor(
  categories: readonly CategoryRef[],
  rules: Pick<
    StackingRules,
    'discount_calculation_mode' | 'initial_amount_mode_categories' | 'discounted_amount_mode_categories'
  >,
): CalculationMode {
  for (const category of byPrecedence(categories)) {
    if (rules.initial_amount_mode_categories.includes(category.id)) return 'INITIAL_AMOUNT'
    if (rules.discounted_amount_mode_categories.includes(category.id)) return 'DISCOUNTED_AMOUNT'
  }
  return rules.discount_calculation_mode
}
