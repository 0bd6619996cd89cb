import { EngineError } from '../errors'
import {
  QUALIFICATION_EXPAND,
  QUALIFICATION_FILTER_FIELDS,
  QUALIFICATION_SCENARIOS,
  QUALIFICATION_SORTING_RULES,
  type QualificationScenario,
} from '../model/qualification'
import type { Filters } from '../rules/match-filters'
import { metadata, opt, positiveInt } from './common'
import { customerInput } from './customer'
import { parseListFilters } from './list-filters'
import { orderInput } from './order'
import { parse } from './parse'
import * as v from './valibot'

/** The hosted page size cap (reference: qualifications list 50 per page). */
export const QUALIFICATIONS_MAX_LIMIT = 50

/** The operators `options.filters` accepts (the hosted qualification filters). */
const FILTER_OPERATORS = ['$is', '$is_not', '$in', '$not_in'] as const

const qualificationOptions = v.object({
  limit: opt(v.pipe(positiveInt, v.maxValue(QUALIFICATIONS_MAX_LIMIT, `must be at most ${QUALIFICATIONS_MAX_LIMIT}`))),
  starting_after: opt(v.pipe(v.string(), v.minLength(1, 'must not be empty'))),
  filters: opt(v.unknown()),
  expand: opt(v.array(v.picklist(QUALIFICATION_EXPAND, `must be one of ${QUALIFICATION_EXPAND.join(', ')}`))),
  sorting_rule: opt(
    v.picklist(QUALIFICATION_SORTING_RULES, `must be one of ${QUALIFICATION_SORTING_RULES.join(', ')}`),
  ),
  /**
   * Ours: `false` skips the campaign-wide and per-customer redemption limits, as the hosted service
   * does; by default they are checked, so a listed offer is one validation accepts.
   */
  check_limits: opt(v.boolean()),
})

export const qualificationRequest = v.object({
  customer: opt(customerInput),
  order: opt(orderInput),
  scenario: opt(v.picklist(QUALIFICATION_SCENARIOS, `must be one of ${QUALIFICATION_SCENARIOS.join(', ')}`)),
  options: opt(qualificationOptions),
  tracking_id: opt(v.string()),
  metadata: opt(metadata),
})

type RawRequest = v.InferOutput<typeof qualificationRequest>

export interface QualificationRequest extends Omit<RawRequest, 'options' | 'scenario'> {
  scenario: QualificationScenario
  options: Omit<NonNullable<RawRequest['options']>, 'filters'> & { limit: number; filters: Filters }
}

/** What each scenario needs from the request. */
const NEEDS: Record<QualificationScenario, { customer: boolean; order: boolean }> = {
  ALL: { customer: false, order: false },
  CUSTOMER_WALLET: { customer: true, order: false },
  AUDIENCE_ONLY: { customer: true, order: false },
  PRODUCTS: { customer: false, order: true },
  PRODUCTS_DISCOUNT: { customer: false, order: true },
  PROMOTION_STACKS: { customer: false, order: false },
  PRODUCTS_BY_CUSTOMER: { customer: true, order: true },
  PRODUCTS_DISCOUNT_BY_CUSTOMER: { customer: true, order: true },
}

/**
 * Parses a qualification body: the shape, the filters (only the hosted fields and operators), and
 * the customer or order the scenario needs.
 */
export function parseQualificationRequest(body: unknown): QualificationRequest {
  const raw = parse(qualificationRequest, body)
  const scenario = raw.scenario ?? 'ALL'
  const needs = NEEDS[scenario]
  const customer = raw.customer
  if (needs.customer && !customer?.id && !customer?.source_id) {
    throw EngineError.invalid('customer', `is required for the ${scenario} scenario (an id or a source_id)`)
  }
  if (needs.order && (raw.order?.items ?? []).length === 0 && !raw.order?.id && !raw.order?.source_id) {
    throw EngineError.invalid('order', `is required for the ${scenario} scenario (an order with items)`)
  }
  const { filters: rawFilters, ...options } = raw.options ?? {}
  const filters = parseListFilters(rawFilters, QUALIFICATION_FILTER_FIELDS, 'options.filters')
  for (const [field, conditions] of Object.entries(filters.fields)) {
    const op = Object.keys(conditions).find((o) => !(FILTER_OPERATORS as readonly string[]).includes(o))
    if (op) {
      throw EngineError.invalid(
        `options.filters.${field}.conditions.${op}`,
        `is not a qualification operator; use one of ${FILTER_OPERATORS.join(', ')}`,
      )
    }
  }
  return { ...raw, scenario, options: { ...options, limit: options.limit ?? 10, filters } }
}

const candidateRef = v.variant('object', [
  v.object({ object: v.literal('voucher'), id: v.pipe(v.string(), v.minLength(1, 'must not be empty')) }),
  v.object({ object: v.literal('promotion_tier'), id: v.pipe(v.string(), v.minLength(1, 'must not be empty')) }),
])

/** The body of our best-stack operation: candidates given, or found by a qualification. */
export const bestStackRequest = v.object({
  customer: opt(customerInput),
  order: orderInput,
  redeemables: opt(v.pipe(v.array(candidateRef), v.minLength(1, 'must have at least 1 item'))),
  scenario: opt(v.picklist(QUALIFICATION_SCENARIOS, `must be one of ${QUALIFICATION_SCENARIOS.join(', ')}`)),
  options: opt(v.object({ check_limits: opt(v.boolean()), filters: opt(v.unknown()) })),
  metadata: opt(metadata),
})
export type BestStackRequest = v.InferOutput<typeof bestStackRequest>

export function parseBestStackRequest(body: unknown): BestStackRequest {
  const request = parse(bestStackRequest, body)
  if (request.redeemables && request.scenario) {
    throw EngineError.invalid('scenario', 'cannot be given with redeemables (give candidates or a scenario, not both)')
  }
  return request
}

/** The body of the points estimate: `{customer, order}`. */
export const pointsEstimateRequest = v.object({ customer: customerInput, order: orderInput })
export type PointsEstimateRequest = v.InferOutput<typeof pointsEstimateRequest>

export function parsePointsEstimateRequest(body: unknown): PointsEstimateRequest {
  const request = parse(pointsEstimateRequest, body)
  if (!request.customer.id && !request.customer.source_id) {
    throw EngineError.invalid('customer', 'needs an id or a source_id')
  }
  return request
}
