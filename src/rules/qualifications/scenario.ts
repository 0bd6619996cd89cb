import type { CalculatedOrder, CalculatedOrderItem } from '../../model/order'
import type { QualificationScenario } from '../../model/qualification'
import type { ValidationRule } from '../../model/validation-rule'
import type { EvalCollection } from '../conditions'
import { targetMatches } from '../discounts'
import { type RedeemableSubject, targetingOf } from '../redeemables'

/*
 * Which loaded redeemables a scenario asks about. Where they come from (the customer's wallet,
 * the promotion tiers, the stacks) is the loader's; what the product scenarios add is decided here,
 * before validation, so a candidate is one whatever validation then says of it.
 */

/** Candidates come from the customer's wallet only. */
export function walletOnly(scenario: QualificationScenario): boolean {
  return scenario === 'CUSTOMER_WALLET'
}

/** The scenario validates without the cart (rules on the customer only). */
export function withoutCart(scenario: QualificationScenario): boolean {
  return scenario === 'AUDIENCE_ONLY'
}

/**
 * Whether a loaded redeemable is a candidate of the scenario on this cart. With a cart, an offer
 * whose discount targets only products the cart lacks is no candidate: it cannot discount this cart
 * (validation would apply it with no effect under `REDEEM_ANYWAY`, which is no offer to show).
 */
export function inScenario(
  scenario: QualificationScenario,
  subject: RedeemableSubject,
  order: CalculatedOrder,
  collections: Readonly<Record<string, EvalCollection>>,
): boolean {
  switch (scenario) {
    case 'AUDIENCE_ONLY':
      return true
    case 'ALL':
    case 'CUSTOMER_WALLET':
    case 'PROMOTION_STACKS':
      return order.items.length === 0 || couldDiscountCart(subject.validation_rules, order.items, collections)
    case 'PRODUCTS':
    case 'PRODUCTS_BY_CUSTOMER':
      return targetsCart(subject, order, collections) || requiresItems(subject)
    case 'PRODUCTS_DISCOUNT':
    case 'PRODUCTS_DISCOUNT_BY_CUSTOMER':
      return targetsCart(subject, order, collections)
    default: {
      const _never: never = scenario
      return _never
    }
  }
}

/** Its discount targets a line of the cart (its rules' `applicable_to` names one). */
export function targetsCart(
  subject: RedeemableSubject,
  order: CalculatedOrder,
  collections: Readonly<Record<string, EvalCollection>>,
): boolean {
  const included = targetingOf(subject)?.included ?? []
  return included.some((entry) => order.items.some((item) => targetMatches(item, entry, collections)))
}

/**
 * The rules set no product targeting, or their targeting names a line of the cart. Without the
 * members of a product collection (`collections` lacks it) a collection entry counts as naming one:
 * the loader filters with this before reading collections, and must not drop a candidate. `memo`
 * keeps each rule's answer across the candidates of one request (many share a rule).
 */
export function couldDiscountCart(
  rules: readonly ValidationRule[],
  items: readonly CalculatedOrderItem[],
  collections: Readonly<Record<string, EvalCollection>> | undefined,
  memo?: Map<ValidationRule, boolean>,
): boolean {
  // As `targetingOf` merges them: any `included_all` opens every line; no included entry, no restriction.
  let targeted = false
  for (const rule of rules) {
    const to = rule.applicable_to
    if (to?.included_all) return true
    const included = to?.included ?? []
    if (included.length === 0) continue
    targeted = true
    let hit = memo?.get(rule)
    if (hit === undefined) {
      hit = included.some(
        (entry) =>
          (entry.object === 'products_collection' && collections?.[entry.id] === undefined) ||
          items.some((item) => targetMatches(item, entry, collections)),
      )
      memo?.set(rule, hit)
    }
    if (hit) return true
  }
  return !targeted
}

const ITEM_RULE = /"name":"(product|sku|order\.items)/

/** Its rules require products: a bundle, or a condition on the cart's products, SKUs or items. */
export function requiresItems(subject: RedeemableSubject): boolean {
  return subject.validation_rules.some((r) => r.bundle_rules != null || ITEM_RULE.test(JSON.stringify(r.rules)))
}
