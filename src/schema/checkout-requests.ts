import type { RequestCustomer, RequestMetadata, RequestOrder, RequestQualificationScenario } from './request-shapes'

export interface ValidationsValidateStackableParams {
  redeemables: (
    | {
        object: 'voucher'
        id: string
        gift?:
          | {
              credits?: number | undefined
            }
          | undefined
        reward?:
          | {
              id: string
              points?: number | undefined
            }
          | undefined
      }
    | {
        object: 'promotion_tier'
        id: string
      }
    | {
        object: 'promotion_stack'
        id: string
      }
  )[]
  order?: RequestOrder | undefined
  customer?: RequestCustomer | undefined
  session?:
    | {
        type: 'LOCK'
        key?: string | undefined
        ttl?: number | undefined
        ttl_unit?:
          | 'DAYS'
          | 'HOURS'
          | 'MINUTES'
          | 'SECONDS'
          | 'MILLISECONDS'
          | 'MICROSECONDS'
          | 'NANOSECONDS'
          | undefined
      }
    | undefined
  tracking_id?: string | undefined
  metadata?: RequestMetadata | undefined
  options?:
    | {
        expand?: ('redemption' | 'category' | 'order' | 'redeemable')[] | undefined
      }
    | undefined
  channel?: string | undefined
}
export type RedemptionsRedeemStackableParams = ValidationsValidateStackableParams
export interface RedemptionsRollbackParams {
  reason?: string | undefined
  tracking_id?: string | undefined
  customer?: RequestCustomer | undefined
  order?:
    | {
        id?: string | undefined
        source_id?: string | null | undefined
      }
    | undefined
  metadata?: RequestMetadata | undefined
}
export type RedemptionsRollbackStackableParams = RedemptionsRollbackParams

export interface QualificationsCheckEligibilityParams {
  customer?: RequestCustomer | undefined
  order?: RequestOrder | undefined
  scenario?: RequestQualificationScenario | undefined
  options?:
    | {
        limit?: number | undefined
        starting_after?: string | undefined
        filters?: unknown
        expand?: ('category' | 'redeemable' | 'validation_rules')[] | undefined
        sorting_rule?: 'BEST_DEAL' | 'LEAST_DEAL' | 'DEFAULT' | undefined
        check_limits?: boolean | undefined
      }
    | undefined
  tracking_id?: string | undefined
  metadata?: RequestMetadata | undefined
}
export interface QualificationsBestStackParams {
  customer?: RequestCustomer | undefined
  order: RequestOrder
  redeemables?:
    | (
        | {
            object: 'voucher'
            id: string
          }
        | {
            object: 'promotion_tier'
            id: string
          }
      )[]
    | undefined
  scenario?: RequestQualificationScenario | undefined
  options?:
    | {
        check_limits?: boolean | undefined
        filters?: unknown
      }
    | undefined
  metadata?: RequestMetadata | undefined
}
export interface LoyaltiesQualificationsParams {
  customer: RequestCustomer
  order: RequestOrder
}
