import type { CalculatedOrderItem } from '../../model/order'
import { type ApplicableToEntry, UNIT_BUDGET_FIELDS, type UnitBudgetField } from '../../model/validation-rule'
import { type Collections, collectionMemberKey, targetMatches, type UnitRoom } from '../discounts'
import { evaluateField, type FormulaContext, type FormulaUse } from '../formulas'
import type { UnitBudgetUse } from './pipeline-types'

/*
 * Unit budgets on targeting entries (docs/concepts.md#targeting: `product_*_quantity_limit`): how many units of a
 * product, SKU or collection member a campaign or promotion tier may discount in all. The operation
 * layer reads the past redemptions; counting them and turning limits into room are decided here.
 */

/** True when the entry carries any unit budget (a value or a formula). */
export function hasUnitBudget(entry: ApplicableToEntry): boolean {
  for (const field of UNIT_BUDGET_FIELDS) {
    if (entry[field] != null) return true
    const formula = entry[`${field}_formula`]
    if (typeof formula === 'string' && formula.trim() !== '') return true
  }
  return false
}

/** One past child redemption as the count needs it. */
export interface PastRedemption {
  customer_id: string | null
  /** The voucher or promotion tier redeemed. */
  related_object_id: string
  items: readonly CalculatedOrderItem[]
}

export interface BudgetScope {
  /** The promotion tier being validated, for the `product_*promotion_tier*` budgets; null for a code. */
  tier_id: string | null
  /** The customer of the request; null when unknown (nothing is counted as theirs). */
  customer_id: string | null
}

/**
 * Units each entry's budgets have used, from `past` (the successful, not rolled back child redemptions
 * of the campaign, or of the code when it has none): each past line's `applied_discount_quantity`
 * counts for the first included entry that matches it, as targeting assigns lines. Entries without a
 * budget get undefined.
 */
export function countUnitsUsed(
  included: readonly ApplicableToEntry[],
  past: readonly PastRedemption[],
  scope: BudgetScope,
  collections: Collections | undefined,
): (UnitBudgetUse | undefined)[] {
  const used: (UnitBudgetUse | undefined)[] = included.map((entry) =>
    hasUnitBudget(entry)
      ? {
          campaign: 0,
          customer_campaign: 0,
          promotion_tier: 0,
          customer_promotion_tier: 0,
          members_campaign: {},
          members_customer_campaign: {},
        }
      : undefined,
  )
  if (!used.some((u) => u !== undefined)) return used
  for (const r of past) {
    const theirs = scope.customer_id !== null && r.customer_id === scope.customer_id
    const tier = scope.tier_id !== null && r.related_object_id === scope.tier_id
    for (const item of r.items) {
      const units = item.applied_discount_quantity
      if (!(units > 0)) continue
      const g = included.findIndex((entry) => targetMatches(item, entry, collections))
      const use = g === -1 ? undefined : used[g]
      if (use === undefined) continue
      use.campaign += units
      if (theirs) use.customer_campaign += units
      if (tier) use.promotion_tier += units
      if (tier && theirs) use.customer_promotion_tier += units
      const key = collectionMemberKey(item, included[g] as ApplicableToEntry, collections)
      if (key !== undefined) {
        use.members_campaign[key] = (use.members_campaign[key] ?? 0) + units
        if (theirs) use.members_customer_campaign[key] = (use.members_customer_campaign[key] ?? 0) + units
      }
    }
  }
  return used
}

/**
 * The room each entry has left: every budget's limit minus what it used, the tightest entry-wide one
 * as `units`, the tightest per-member one per member. A `_formula` variant is evaluated over `formulas`
 * (the order as it stands) and falls back to the static value; with neither, there is no such budget.
 * Tier budgets only bind a promotion tier.
 */
export function unitRoomOf(
  included: readonly ApplicableToEntry[],
  used: readonly (UnitBudgetUse | undefined)[],
  isTier: boolean,
  formulas: FormulaContext | undefined,
  uses: FormulaUse[],
): (UnitRoom | undefined)[] {
  return included.map((entry, g) => {
    const u = used[g]
    if (u === undefined) return undefined
    const limit = (field: UnitBudgetField) => limitOf(entry, field, formulas, uses)
    const room: UnitRoom = {}
    const wide = [
      left(limit('product_campaign_quantity_limit'), u.campaign),
      left(limit('product_customer_campaign_quantity_limit'), u.customer_campaign),
      isTier ? left(limit('product_promotion_tier_quantity_limit'), u.promotion_tier) : undefined,
      isTier ? left(limit('product_customer_promotion_tier_quantity_limit'), u.customer_promotion_tier) : undefined,
    ]
    const units = tightest(wide)
    if (units !== undefined) room.units = units
    if (entry.object === 'products_collection') {
      const perMember = limit('product_in_collection_campaign_quantity_limit')
      const perCustomerMember = limit('product_in_collection_customer_campaign_quantity_limit')
      const memberDefault = tightest([perMember, perCustomerMember])
      if (memberDefault !== undefined) {
        room.member_default = memberDefault
        const members: Record<string, number> = {}
        for (const key of new Set([...Object.keys(u.members_campaign), ...Object.keys(u.members_customer_campaign)])) {
          members[key] = tightest([
            left(perMember, u.members_campaign[key] ?? 0),
            left(perCustomerMember, u.members_customer_campaign[key] ?? 0),
          ]) as number
        }
        room.members = members
      }
    }
    return room.units === undefined && room.member_default === undefined ? undefined : room
  })
}

function limitOf(
  entry: ApplicableToEntry,
  field: UnitBudgetField,
  formulas: FormulaContext | undefined,
  uses: FormulaUse[],
): number | undefined {
  const value = entry[field]
  const fallback = value != null && value >= 0 ? value : undefined
  const formula = entry[`${field}_formula`]
  if (formulas === undefined || typeof formula !== 'string' || formula.trim() === '') return fallback
  const use = evaluateField(field, formula, fallback ?? Number.POSITIVE_INFINITY, formulas, (v) =>
    v.isNegative() ? 0 : v.floor().toNumber(),
  )
  // No static value and no result: the budget does not bind (it is not reported as a use either).
  if (!Number.isFinite(use.value)) return undefined
  uses.push(use)
  return use.value
}

function left(limit: number | undefined, usedUnits: number): number | undefined {
  return limit === undefined ? undefined : Math.max(limit - usedUnits, 0)
}

function tightest(values: readonly (number | undefined)[]): number | undefined {
  let min: number | undefined
  for (const v of values) if (v !== undefined && (min === undefined || v < min)) min = v
  return min
}

/** Whether any budget of `included` needs the formula context. */
export function hasBudgetFormula(included: readonly ApplicableToEntry[]): boolean {
  return included.some((entry) =>
    UNIT_BUDGET_FIELDS.some((field) => {
      const formula = entry[`${field}_formula`]
      return typeof formula === 'string' && formula.trim() !== ''
    }),
  )
}
