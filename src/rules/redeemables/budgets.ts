import type { CalculatedOrderItem } from '../../model/order'
import { type ApplicableToEntry, UNIT_BUDGET_FIELDS, type UnitBudgetField } from '../../model/validation-rule'
import type { Counter } from '../../storage/ports'
import type { CounterWrite } from '../counters'
import { type Collections, collectionMemberKey, targetMatches, type UnitRoom } from '../discounts'
import { evaluateField, type FormulaContext, type FormulaUse } from '../formulas'
import type { RedeemableSubject, UnitBudgetUse, UnitLimits } from './pipeline-types'

/*
 * Unit budgets on targeting entries (docs/concepts.md#targeting: `product_*_quantity_limit`): how many units of a
 * product, SKU or collection member a campaign or promotion tier may discount in all. They read
 * counter rows (docs/storage.md#counters) that each redemption increments by the units it discounted,
 * guarded by the limits it decided on; which rows, what they say and what a redemption adds are decided here.
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

/** Whose unit budgets a redemption counts in (docs/storage.md#counters). */
export interface UnitScope {
  /** The campaign; a code outside any campaign is its own. */
  campaign: string
  /** The promotion tier redeemed, for the `product_*promotion_tier*` budgets; null for a code. */
  tier: string | null
  /** The customer; null when unknown (nothing is counted as theirs). */
  customer: string | null
}

/** The scope of a subject's unit budgets; null when it names nothing stored. */
export function unitScopeOf(subject: RedeemableSubject, customerId: string | null): UnitScope | null {
  const campaign =
    subject.campaign?.id ?? subject.tier?.campaign_id ?? subject.voucher?.campaign_id ?? subject.voucher?.id
  if (campaign === undefined) return null
  return { campaign, tier: subject.tier?.id ?? null, customer: customerId }
}

/** The counter rows of one entry's entry-wide budgets, keyed by what the entry targets. */
function entryRows(entry: ApplicableToEntry, scope: UnitScope) {
  const key = `${entry.object}/${entry.id}`
  const { campaign, tier, customer } = scope
  return {
    campaign: `u:${campaign}:${key}`,
    customer_campaign: customer === null ? undefined : `uc:${campaign}:${key}:${customer}`,
    promotion_tier: tier === null ? undefined : `ut:${tier}:${key}`,
    customer_promotion_tier: tier === null || customer === null ? undefined : `utc:${tier}:${key}:${customer}`,
    member: (m: string) => `um:${campaign}:${key}:${m}`,
    customer_member: (m: string) => (customer === null ? undefined : `umc:${campaign}:${key}:${m}:${customer}`),
  }
}

/**
 * The lines each budgeted entry counts: a line counts for the first included entry that matches it,
 * as targeting assigns lines, and inside a collection entry for its member (product, else SKU).
 */
function budgetLines(
  included: readonly ApplicableToEntry[],
  items: readonly CalculatedOrderItem[],
  collections: Collections | undefined,
): { entry: number; item: CalculatedOrderItem; member: string | undefined }[] {
  const out: { entry: number; item: CalculatedOrderItem; member: string | undefined }[] = []
  for (const item of items) {
    const g = included.findIndex((entry) => targetMatches(item, entry, collections))
    const entry = included[g]
    if (entry === undefined || !hasUnitBudget(entry)) continue
    out.push({ entry: g, item, member: collectionMemberKey(item, entry, collections) })
  }
  return out
}

/** The counter rows the budgets of `included` read for an order: the entries' and its lines' members'. */
export function unitCounterIds(
  included: readonly ApplicableToEntry[],
  scope: UnitScope,
  items: readonly CalculatedOrderItem[],
  collections: Collections | undefined,
): string[] {
  const ids = new Set<string>()
  included.forEach((entry) => {
    if (!hasUnitBudget(entry)) return
    const rows = entryRows(entry, scope)
    for (const id of [rows.campaign, rows.customer_campaign, rows.promotion_tier, rows.customer_promotion_tier])
      if (id !== undefined) ids.add(id)
  })
  for (const { entry, member } of budgetLines(included, items, collections)) {
    if (member === undefined) continue
    const rows = entryRows(included[entry] as ApplicableToEntry, scope)
    ids.add(rows.member(member))
    const mine = rows.customer_member(member)
    if (mine !== undefined) ids.add(mine)
  }
  return [...ids]
}

/**
 * Units each entry's budgets have used, from the counter rows (absent rows count 0) plus what
 * redeemables applied before in the same request add (`pending`, by row id): in the campaign, of this
 * customer in it, of the tier, of this customer in the tier, and per member of the order's lines.
 * Entries without a budget get undefined.
 */
export function unitUseFromRows(
  included: readonly ApplicableToEntry[],
  scope: UnitScope,
  rows: ReadonlyMap<string, Counter>,
  items: readonly CalculatedOrderItem[],
  collections: Collections | undefined,
  pending?: ReadonlyMap<string, number>,
): (UnitBudgetUse | undefined)[] {
  const count = (id: string | undefined) => {
    if (id === undefined) return 0
    const n = rows.get(id)?.count
    return (typeof n === 'number' ? n : 0) + (pending?.get(id) ?? 0)
  }
  const used = included.map((entry): UnitBudgetUse | undefined => {
    if (!hasUnitBudget(entry)) return undefined
    const r = entryRows(entry, scope)
    return {
      campaign: count(r.campaign),
      customer_campaign: count(r.customer_campaign),
      promotion_tier: count(r.promotion_tier),
      customer_promotion_tier: count(r.customer_promotion_tier),
      members_campaign: {},
      members_customer_campaign: {},
    }
  })
  for (const { entry, member } of budgetLines(included, items, collections)) {
    const use = used[entry]
    if (member === undefined || use === undefined) continue
    const r = entryRows(included[entry] as ApplicableToEntry, scope)
    const all = count(r.member(member))
    const mine = count(r.customer_member(member))
    if (all > 0) use.members_campaign[member] = all
    if (mine > 0) use.members_customer_campaign[member] = mine
  }
  return used
}

/**
 * What one redemption adds to the budget rows: each line's `applied_discount_quantity` (this
 * redeemable's units) under the entry it counts for, by row id. Rows it adds nothing to are left out.
 */
export function unitsTaken(
  included: readonly ApplicableToEntry[],
  scope: UnitScope,
  items: readonly CalculatedOrderItem[],
  collections: Collections | undefined,
): Map<string, number> {
  const out = new Map<string, number>()
  const add = (id: string | undefined, n: number) => {
    if (id !== undefined) out.set(id, (out.get(id) ?? 0) + n)
  }
  for (const { entry, item, member } of budgetLines(included, items, collections)) {
    const units = item.applied_discount_quantity
    if (!(units > 0)) continue
    const r = entryRows(included[entry] as ApplicableToEntry, scope)
    add(r.campaign, units)
    add(r.customer_campaign, units)
    add(r.promotion_tier, units)
    add(r.customer_promotion_tier, units)
    if (member !== undefined) {
      add(r.member(member), units)
      add(r.customer_member(member), units)
    }
  }
  return out
}

/** The lines with `applied_discount_quantity` set to one step's units (`units`, by line index). */
export function withUnits(items: readonly CalculatedOrderItem[], units: readonly number[]): CalculatedOrderItem[] {
  return items.map((item, i) => ({ ...item, applied_discount_quantity: units[i] ?? 0 }))
}

/**
 * The increments of one redemption's units (`unitsTaken`), each guarded by the limit the decision
 * used for its row (`limits`, from `unitLimitsOf`): concurrent redemptions never together pass it.
 */
export function unitCounterWrites(
  included: readonly ApplicableToEntry[],
  scope: UnitScope,
  items: readonly CalculatedOrderItem[],
  collections: Collections | undefined,
  limits: readonly (UnitLimits | undefined)[],
): CounterWrite[] {
  const taken = unitsTaken(included, scope, items, collections)
  if (taken.size === 0) return []
  const bound = new Map<string, number>()
  const narrow = (id: string | undefined, limit: number | undefined) => {
    if (id === undefined || limit === undefined || !taken.has(id)) return
    bound.set(id, Math.min(bound.get(id) ?? limit, limit))
  }
  for (const { entry, member } of budgetLines(included, items, collections)) {
    const l = limits[entry]
    if (l === undefined) continue
    const r = entryRows(included[entry] as ApplicableToEntry, scope)
    narrow(r.campaign, l.campaign)
    narrow(r.customer_campaign, l.customer_campaign)
    narrow(r.promotion_tier, l.promotion_tier)
    narrow(r.customer_promotion_tier, l.customer_promotion_tier)
    if (member !== undefined) {
      narrow(r.member(member), l.member)
      narrow(r.customer_member(member), l.customer_member)
    }
  }
  return [...taken].map(([id, n]) => {
    const max = bound.get(id)
    return max === undefined ? { id, by: { count: n } } : { id, by: { count: n }, guard: { count: { max } } }
  })
}

/**
 * Each entry's budget limits: a `_formula` variant is evaluated over `formulas` (the order as it
 * stands) and falls back to the static value; with neither, there is no such budget. Tier budgets
 * only bind a promotion tier.
 */
export function unitLimitsOf(
  included: readonly ApplicableToEntry[],
  isTier: boolean,
  formulas: FormulaContext | undefined,
  uses: FormulaUse[],
): (UnitLimits | undefined)[] {
  return included.map((entry) => {
    if (!hasUnitBudget(entry)) return undefined
    const limit = (field: UnitBudgetField) => limitOf(entry, field, formulas, uses)
    const out: UnitLimits = {}
    const set = (key: keyof UnitLimits, value: number | undefined) => {
      if (value !== undefined) out[key] = value
    }
    set('campaign', limit('product_campaign_quantity_limit'))
    set('customer_campaign', limit('product_customer_campaign_quantity_limit'))
    if (isTier) {
      set('promotion_tier', limit('product_promotion_tier_quantity_limit'))
      set('customer_promotion_tier', limit('product_customer_promotion_tier_quantity_limit'))
    }
    if (entry.object === 'products_collection') {
      set('member', limit('product_in_collection_campaign_quantity_limit'))
      set('customer_member', limit('product_in_collection_customer_campaign_quantity_limit'))
    }
    return out
  })
}

/**
 * The room each entry has left: every budget's limit (`unitLimitsOf`) minus what it used, the
 * tightest entry-wide one as `units`, the tightest per-member one per member.
 */
export function unitRoomOf(
  used: readonly (UnitBudgetUse | undefined)[],
  limits: readonly (UnitLimits | undefined)[],
): (UnitRoom | undefined)[] {
  return limits.map((l, g) => {
    const u = used[g]
    if (u === undefined || l === undefined) return undefined
    const room: UnitRoom = {}
    const units = tightest([
      left(l.campaign, u.campaign),
      left(l.customer_campaign, u.customer_campaign),
      left(l.promotion_tier, u.promotion_tier),
      left(l.customer_promotion_tier, u.customer_promotion_tier),
    ])
    if (units !== undefined) room.units = units
    const memberDefault = tightest([l.member, l.customer_member])
    if (memberDefault !== undefined) {
      room.member_default = memberDefault
      const members: Record<string, number> = {}
      for (const key of new Set([...Object.keys(u.members_campaign), ...Object.keys(u.members_customer_campaign)])) {
        members[key] = tightest([
          left(l.member, u.members_campaign[key] ?? 0),
          left(l.customer_member, u.members_customer_campaign[key] ?? 0),
        ]) as number
      }
      room.members = members
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
