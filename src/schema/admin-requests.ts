import type { RequestMetadata } from './request-shapes'
/**
 * `auth.createApplication`: the application's name, its family (server, client or management), its
 * scopes and allowed origins.
 */
export interface AuthCreateApplicationParams {
  name?: string | null | undefined
  family: 'server' | 'client' | 'management'
  allowed_origins?: string[] | undefined
  scopes?:
    | (
        | 'api'
        | 'assets'
        | 'async-actions'
        | 'campaigns'
        | 'categories'
        | 'client_api'
        | 'client_consents'
        | 'client_customers'
        | 'client_events'
        | 'client_promotions'
        | 'client_publish'
        | 'client_qualifications'
        | 'client_redeem'
        | 'client_redemptions'
        | 'client_validate'
        | 'client_validations'
        | 'client_vouchers'
        | 'consents'
        | 'customers'
        | 'events'
        | 'exports'
        | 'locations'
        | 'loyalties'
        | 'metadata-schemas'
        | 'orders'
        | 'product-collections'
        | 'products'
        | 'promotions'
        | 'publications'
        | 'qualifications'
        | 'redemptions'
        | 'referrals'
        | 'rewards'
        | 'segments'
        | 'SKUs'
        | 'task-results'
        | 'templates'
        | 'trash-bin'
        | 'validation-rules-assignments'
        | 'validation-rules'
        | 'validations'
        | 'vouchers'
      )[]
    | undefined
  app_id?: string | undefined
  secret?: string | undefined
}
export interface AuthRotateSecretParams {
  secret?: string | undefined
}
/** The token endpoint's form fields, parsed or as `URLSearchParams`. */
export type AuthIssueTokenParams =
  | {
      grant_type: string
      scope: string
    }
  | URLSearchParams
export type AuthRevokeTokenParams =
  | URLSearchParams
  | {
      access_token: string
    }
export interface AuthAuthenticateParams {
  family: 'server' | 'client' | 'management' | 'token'
  headers: {
    [x: string]: string | string[] | undefined
  }
  operation: string
}

export interface MetadataSchemasCreateParams {
  related_object: string
  properties: {
    [x: string]:
      | {
          type: 'string' | 'number' | 'boolean' | 'object' | 'image_url' | 'date' | 'datetime' | 'geopoint'
          array?: boolean | undefined
          optional?: boolean | undefined
          objectType?: string | null | undefined
          eq?: unknown[] | undefined
          exactLength?: number | undefined
        }
      | undefined
  }
  allow_defined_only?: boolean | null | undefined
}
export interface ExportsCreateCampaignTransactionsExportParams {
  order?: 'created_at' | '-created_at' | undefined
  parameters?:
    | {
        fields?: string[] | undefined
        filters?: RequestMetadata | undefined
      }
    | undefined
}
export interface ExportsCreateParams {
  exported_object: 'voucher' | 'redemption' | 'customer' | 'order' | 'publication' | 'voucher_transactions'
  parameters?:
    | {
        order?: 'created_at' | 'id' | '-created_at' | '-id' | undefined
        fields?: string[] | undefined
        filters?: RequestMetadata | undefined
      }
    | undefined
}

export interface MaintenancePurgeExpiredParams {
  limit?: number | undefined
}

/** `maintenance.trimChangeFeed`: how old a commit's changes must be to go, and how many per call. */
export interface MaintenanceTrimChangeFeedParams {
  /** Commits made this many seconds ago or earlier go (0: every commit made so far). */
  older_than_seconds: number
  /** Changes read per call, oldest first: 1 to 10,000, 1,000 by default. */
  limit?: number | undefined
}

/**
 * `maintenance.backfillCustomerSummaries`, `maintenance.backfillSessionLocks`,
 * `maintenance.backfillUnitBudgets` and `maintenance.backfillCardTransactions`: a page of customers (or
 * session locks, redemptions, vouchers), and where it starts.
 */
export interface MaintenanceBackfillParams {
  /** Rows per call (one commit): 1 to 1,000, 100 by default. */
  limit?: number | undefined
  /** Resume after this id (the previous call's `next_starting_after`). */
  starting_after?: string | undefined
}
