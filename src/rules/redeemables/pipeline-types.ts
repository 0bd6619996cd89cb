import type { Campaign } from '../../model/campaign'
import type { Category, Metadata } from '../../model/common'
import type { Discount } from '../../model/discount'
import type { LoyaltyTier, Reward, RewardAssignment } from '../../model/loyalty'
import type { CalculatedOrder } from '../../model/order'
import type { PromotionTier } from '../../model/promotion'
import type { StackingRules } from '../../model/stacking'
import type { ApplicableToResultList, ValidationRule } from '../../model/validation-rule'
import type { Voucher } from '../../model/voucher'
import type { RoundingMode } from '../../money'
import type { Counter } from '../../storage/ports'
import type { Bundle, CounterBound, EvalCollection, EvalCounters, EvalCustomer, RuleFailure } from '../conditions'
import type { CatalogPrices, StepResult } from '../discounts'
import type { FormulaUse } from '../formulas'
import type { SkipExplanation, SkipKey } from '../stacking'

/**
 * Everything the validation of one requested redeemable needs, read by the operation layer.
 * The pure pipeline decides on this alone: no store, no clock.
 */
export interface RedeemableSubject {
  /** Position in the request, after a promotion stack was expanded into its tiers. */
  index: number
  object: 'voucher' | 'promotion_tier'
  /** What the request named: a code or an id. */
  requested_id: string
  gift?: { credits?: number }
  reward?: { id: string; points?: number }
  /**
   * Absent when the id names nothing: the redeemable is `not_found`. Its `session_locks` are what
   * other sessions' live locks hold on it (the request's own session excluded).
   */
  voucher?: Voucher
  tier?: PromotionTier
  campaign?: Campaign | null
  categories: Category[]
  /** The validation rules assigned to the voucher, its campaign, or the tier. */
  validation_rules: ValidationRule[]
  counters?: EvalCounters
  /** Loyalty card: the reward named by the request, its assignment to the card's campaign, the member's tier. */
  loyalty?: { reward: Reward | null; assignment: RewardAssignment | null; tier: LoyaltyTier | null }
  /** The customer ids of the code's referrer and holder, for the referral and linked-holder checks. */
  holder_source_id?: string | null
  /**
   * The counter rows of its unit budgets (docs/concepts.md#targeting), by id (`unitCounterIds`): read only
   * when an entry of its merged `applicable_to.included` (`targetingOf`) has a budget.
   */
  unit_counters?: ReadonlyMap<string, Counter>
}

/**
 * What successful, not rolled back redemptions discounted of one targeting entry (their order lines'
 * `applied_discount_quantity`, kept in counter rows): in the campaign (a standalone code: the code),
 * of this customer in it, of the promotion tier, of this customer in the tier; per collection member too.
 */
export interface UnitBudgetUse {
  campaign: number
  customer_campaign: number
  promotion_tier: number
  customer_promotion_tier: number
  /** Collection entries: by product id (SKU id for a SKU member). */
  members_campaign: Record<string, number>
  members_customer_campaign: Record<string, number>
}

/** The limits of one entry's budgets, as evaluated for a decision (a formula on the order as it stands). */
export interface UnitLimits {
  /** `product_campaign_quantity_limit`: units of the entry in the campaign. */
  campaign?: number
  /** `product_customer_campaign_quantity_limit`: units of the entry for this customer in the campaign. */
  customer_campaign?: number
  /** `product_promotion_tier_quantity_limit` (promotion tiers only). */
  promotion_tier?: number
  /** `product_customer_promotion_tier_quantity_limit` (promotion tiers only). */
  customer_promotion_tier?: number
  /** `product_in_collection_campaign_quantity_limit`: each member of a collection entry. */
  member?: number
  /** `product_in_collection_customer_campaign_quantity_limit`: each member, for this customer. */
  customer_member?: number
}

/** What a redeemable with unit budgets took of them (`SubjectOutcome.unit_budgets`). */
export interface UnitBudgetsUsed {
  /** Per included entry: the limits decided on (undefined for an entry without a budget). */
  limits: (UnitLimits | undefined)[]
  /** Per line of the outcome's order: the units this redeemable's step discounted. */
  units: number[]
}

export interface PipelineInput {
  subjects: RedeemableSubject[]
  /** The normalised order before any redeemable. */
  order: CalculatedOrder
  /** Whether the request sent an order at all (gift cards and pay with points need one). */
  order_given: boolean
  /** Decide on the customer's profile alone: cart rules and bundles are not evaluated (`AUDIENCE_ONLY`). */
  audience_only?: boolean
  customer: EvalCustomer | null
  redemption_metadata: Metadata
  rules: StackingRules
  now: Date
  timeZone: string
  rounding: RoundingMode
  /** Members of the product collections the rules and discounts name, resolved by the operation layer. */
  collections: Readonly<Record<string, EvalCollection>>
  prices: CatalogPrices
}

/** The `result.error` of an inapplicable redeemable: the hosted fields, plus why. */
export interface RedeemableError {
  code: number
  key: string
  message: string
  details: string
  request_id: string | null
  resource_id?: string
  resource_type?: string
  error?: { message: string }
}

/** Why a "no" happened, as data (DESIGN.md "Explain every no"). */
export type Explanation =
  | { check: 'validation_rule'; rule_id: string; failures: RuleFailure[] }
  | {
      check: 'stacking'
      key: SkipKey
      limit: SkipExplanation['limit']
      value: SkipExplanation['value']
      category_id?: string
      /** The redeemable that caused it: the exclusive one that won, or the first inapplicable one under ALL. */
      blocked_by?: string
      /** The applied redeemables that had already filled the limit. */
      filled_by?: string[]
    }
  | { check: string; detail: string; expected?: unknown; actual?: unknown }

/** What an applicable redeemable does to the order, and what its commit must guard. */
export interface AppliedEffect {
  step: StepResult | null
  /** The cumulative order after this redeemable (the running order itself when it has no order effect). */
  order: CalculatedOrder
  gift?: { credits: number; balance: number }
  loyalty_card?: { points: number }
  bundle?: Bundle
  /** The discount as applied when formulas set its values (`is_dynamic: true`). */
  discount?: Discount
  /** Each formula evaluated for this redeemable, and the static fallbacks used. */
  formulas?: FormulaUse[]
  /** What the budget rules it passed allow its counters to reach: the commit guards them. */
  budget_bounds?: CounterBound[]
  /**
   * Its unit budgets: the limits decided on per included entry (the commit guards their rows with
   * them) and the units its step discounted per line of `order` (what the budgets counted).
   */
  unit_budgets?: UnitBudgetsUsed
}

export type SubjectOutcome =
  | ({ index: number; status: 'APPLICABLE' } & AppliedEffect)
  | {
      index: number
      status: 'INAPPLICABLE'
      error: RedeemableError
      details?: { key: string; message: string }
      bundle?: Bundle
      explanation: Explanation
    }
  | { index: number; status: 'SKIPPED'; details: { key: string; message: string }; explanation: Explanation }

export interface PipelineResult {
  /** One outcome per subject, in application order (the stacking sort). */
  outcomes: SubjectOutcome[]
  /** The order after every applicable redeemable; `applied_*` are the totals of the request. */
  order: CalculatedOrder
  valid: boolean
  /** The subjects a redemption redeems (none when an ALL-mode request fails). */
  redeem: number[]
}

export type { ApplicableToResultList }
