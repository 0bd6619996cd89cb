import type { Category, DateTime, Metadata } from './common'
import type { CalculatedOrder } from './order'
import type { StackingRules } from './stacking'
import type { ApplicableToResultList, ValidationRuleAssignment } from './validation-rule'

/** What a qualification asks about, and so which redeemables it considers (`POST /v1/qualifications`). */
export const QUALIFICATION_SCENARIOS = [
  'ALL',
  'CUSTOMER_WALLET',
  'AUDIENCE_ONLY',
  'PRODUCTS',
  'PRODUCTS_DISCOUNT',
  'PROMOTION_STACKS',
  'PRODUCTS_BY_CUSTOMER',
  'PRODUCTS_DISCOUNT_BY_CUSTOMER',
] as const
export type QualificationScenario = (typeof QUALIFICATION_SCENARIOS)[number]

export const QUALIFICATION_SORTING_RULES = ['BEST_DEAL', 'LEAST_DEAL', 'DEFAULT'] as const
export type QualificationSortingRule = (typeof QUALIFICATION_SORTING_RULES)[number]

export const QUALIFICATION_EXPAND = ['redeemable', 'category', 'validation_rules'] as const
export type QualificationExpand = (typeof QUALIFICATION_EXPAND)[number]

/** The fields `options.filters` may name. */
export const QUALIFICATION_FILTER_FIELDS = [
  'campaign_id',
  'campaign_type',
  'category_id',
  'resource_id',
  'resource_type',
  'voucher_type',
  'code',
] as const

/** One qualified redeemable (the hosted `QualificationsRedeemable`). */
export interface QualificationsRedeemable {
  /** A voucher's code, a promotion tier's or stack's id. */
  id: string
  object: 'voucher' | 'promotion_tier' | 'promotion_stack'
  created_at: DateTime
  /** What it does on this cart: `discount`, `gift` or `loyalty_card`, as a validation shows it. */
  result: Record<string, unknown>
  /** The cart with this redeemable alone applied. */
  order?: CalculatedOrder
  applicable_to?: ApplicableToResultList
  inapplicable_to?: ApplicableToResultList
  categories: Category[]
  banner?: string | null
  metadata?: Metadata
  name?: string | null
  campaign_name?: string | null
  campaign_id?: string | null
  validation_rules_assignments?: {
    object: 'list'
    data_ref: 'data'
    data: ValidationRuleAssignment[]
    total: number
  }
  /** A promotion stack's tiers, each as it applies within the stack. */
  redeemables?: QualificationsRedeemable[]
}

/** The answer of `POST /v1/qualifications` (the hosted `QualificationsCheckEligibilityResponseBody`). */
export interface QualificationsResult {
  redeemables: {
    object: 'list'
    data_ref: 'data'
    data: QualificationsRedeemable[]
    total: number
    has_more: boolean
    /** The `options.starting_after` of the next page, or null on the last one. */
    more_starting_after: string | null
  }
  tracking_id: string | null
  order: CalculatedOrder
  stacking_rules: StackingRules
}

/** The answer of `POST /v1/loyalties/{campaignId}/qualifications`, plus the dry run of the cascade. */
export interface PointsEstimation {
  campaign: { id: string; name: string; object: 'campaign' }
  /** The hosted estimate: what the program's order-paid rules give, tiers ignored. */
  points_estimation: number
  /** What the order would really do to the customer's card, written nowhere. */
  cascade: {
    /** The card the points go to; null when the customer is not a member (nothing is credited). */
    voucher_id: string | null
    /** Points credited by the order-paid rules with the member's tier mapping applied, then by tier rules. */
    points: number
    /** Points a pending rule would hold until it activates (not in `points`). */
    pending_points: number
    balance_before: number
    balance_after: number
    tier_before: string | null
    tier_after: string | null
    /** Each rule that fires, in firing order. */
    rules: { earning_rule_id: string; event: string; points: number; pending: boolean }[]
    /** The tier events the credit causes. */
    tier_events: { type: string; tier_id: string }[]
    /** The program's auto-redeem reward, redeemed as many times as the new balance pays for. */
    rewards: { reward_id: string; times: number; points: number }[]
  }
}
