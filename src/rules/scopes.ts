/**
 * Who may call what: the scope values of the service interface, the family and scope each engine operation needs
 * (docs/behaviour.md#scopes), and the parsing of an OAuth `scope` string. Pure data and functions.
 */

/** Every scope value the service interface lists, in its order. */
export const SCOPES = [
  'api',
  'assets',
  'async-actions',
  'campaigns',
  'categories',
  'client_api',
  'client_consents',
  'client_customers',
  'client_events',
  'client_promotions',
  'client_publish',
  'client_qualifications',
  'client_redeem',
  'client_redemptions',
  'client_validate',
  'client_validations',
  'client_vouchers',
  'consents',
  'customers',
  'events',
  'exports',
  'locations',
  'loyalties',
  'metadata-schemas',
  'orders',
  'product-collections',
  'products',
  'promotions',
  'publications',
  'qualifications',
  'redemptions',
  'referrals',
  'rewards',
  'segments',
  'SKUs',
  'task-results',
  'templates',
  'trash-bin',
  'validation-rules-assignments',
  'validation-rules',
  'validations',
  'vouchers',
] as const

export type Scope = (typeof SCOPES)[number]

/** The endpoint families of the service interface; `token` is the two OAuth token endpoints (app credentials only). */
export type Family = 'server' | 'client' | 'management' | 'token'

export interface OperationAccess {
  family: Family
  /** The scope a bearer token must carry; null where the family has no tokens (management, token). */
  scope: Scope | null
}

const server = (scope: Scope): OperationAccess => ({ family: 'server', scope })
const client = (scope: Scope): OperationAccess => ({ family: 'client', scope })
const management: OperationAccess = { family: 'management', scope: null }
const token: OperationAccess = { family: 'token', scope: null }

/**
 * The operation table: every engine operation a host may put behind an endpoint, by its engine name
 * (`namespace.method`; client-side requests are prefixed `client.`). Host-only calls that are not
 * endpoints (`auth.authenticate`, `auth.createApplication`, `auth.rotateSecret`, `files.get`,
 * `maintenance.purgeExpired`, `maintenance.trimChangeFeed`, `maintenance.backfillCustomerSummaries`, `maintenance.backfillSessionLocks`,
 * `maintenance.backfillCardTransactions`, `maintenance.backfillUnitBudgets`, `maintenance.foldPeriodCounters`)
 * are not listed.
 */
export const OPERATIONS = {
  'auth.issueToken': token,
  'auth.revokeToken': token,

  'loyalties.create': server('loyalties'),
  'loyalties.get': server('loyalties'),
  'loyalties.list': server('loyalties'),
  'loyalties.createMember': server('loyalties'),
  'loyalties.getMember': server('loyalties'),
  'loyalties.redeemReward': server('loyalties'),
  'loyalties.listEarningRules': server('loyalties'),
  'loyalties.createEarningRule': server('loyalties'),
  'loyalties.createTiers': server('loyalties'),
  'loyalties.listTiers': server('loyalties'),
  'loyalties.getMemberTier': server('loyalties'),
  'loyalties.createRewardAssignments': server('loyalties'),
  'loyalties.qualifications': server('loyalties'),
  'qualifications.checkEligibility': server('qualifications'),
  'qualifications.bestStack': server('qualifications'),
  'rewards.create': server('rewards'),
  'rewards.get': server('rewards'),
  'rewards.createAssignment': server('rewards'),
  'validations.validateStackable': server('validations'),
  'redemptions.redeemStackable': server('redemptions'),
  'redemptions.rollbackStackable': server('redemptions'),
  'redemptions.rollback': server('redemptions'),
  'redemptions.get': server('redemptions'),
  'campaigns.create': server('campaigns'),
  'campaigns.get': server('campaigns'),
  'vouchers.create': server('vouchers'),
  'vouchers.get': server('vouchers'),
  'vouchers.bulkUpdate': server('vouchers'),
  'vouchers.releaseValidationSession': server('vouchers'),
  'promotions.create': server('promotions'),
  'promotions.stacks.list': server('promotions'),
  'promotions.stacks.listInCampaign': server('promotions'),
  'promotions.stacks.createInCampaign': server('promotions'),
  'promotions.tiers.create': server('promotions'),
  'promotions.tiers.get': server('promotions'),
  'promotions.tiers.list': server('promotions'),
  'promotions.tiers.enable': server('promotions'),
  'promotions.tiers.disable': server('promotions'),
  'promotions.stacks.get': server('promotions'),
  'customers.create': server('customers'),
  'customers.get': server('customers'),
  'customers.listActivity': server('customers'),
  'customers.enterSegment': server('segments'),
  'customers.leaveSegment': server('segments'),
  'orders.create': server('orders'),
  'orders.update': server('orders'),
  'orders.get': server('orders'),
  'events.create': server('events'),
  'categories.create': server('categories'),
  'categories.get': server('categories'),
  'referrals.listHolders': server('referrals'),
  'referrals.publish': server('publications'),
  'publications.create': server('publications'),
  'templates.listCampaignTemplates': server('templates'),
  'templates.getCampaignTemplate': server('templates'),
  'templates.createCampaignTemplate': server('templates'),
  'templates.createCampaignFromTemplate': server('templates'),
  'metadataSchemas.create': server('metadata-schemas'),
  'metadataSchemas.get': server('metadata-schemas'),
  'metadataSchemas.list': server('metadata-schemas'),
  'exports.createCampaignTransactionsExport': server('exports'),
  'exports.create': server('exports'),
  'exports.get': server('exports'),
  'files.download': server('exports'),
  'products.create': server('products'),
  'products.createSku': server('SKUs'),
  'products.listSkus': server('SKUs'),
  'products.createCollection': server('product-collections'),
  'products.getCollection': server('product-collections'),
  'asyncActions.get': server('async-actions'),
  'asyncActions.runPending': server('async-actions'),
  'validationRules.create': server('validation-rules'),
  'validationRules.get': server('validation-rules'),
  'validationRules.listAssignments': server('validation-rules-assignments'),
  'validationRules.createAssignment': server('validation-rules-assignments'),

  'stackingRules.list': management,
  'stackingRules.create': management,
  'stackingRules.get': management,
  'stackingRules.update': management,

  'client.validations.validateStackable': client('client_validations'),
  'client.redemptions.redeemStackable': client('client_redemptions'),
  'client.events.create': client('client_events'),
  'client.qualifications.checkEligibility': client('client_qualifications'),
} as const satisfies Record<string, OperationAccess>

export type OperationName = keyof typeof OPERATIONS

export function operationAccess(name: string): OperationAccess | undefined {
  return Object.hasOwn(OPERATIONS, name) ? OPERATIONS[name as OperationName] : undefined
}

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value)
}

/** Client-side scopes are the `client_*` values; every other value belongs to the server-side API. */
export function isClientScope(scope: Scope): boolean {
  return scope.startsWith('client_')
}

export type ScopeParse = { ok: true; scopes: Scope[] } | { ok: false; problem: string }

/**
 * Parses an OAuth `scope` form field: values separated by spaces (RFC 6749, section 3.3), commas not allowed
 * (the service interface), every value one of the service interface's. Repeated values collapse; the order of first mention stays.
 */
export function parseScope(raw: string): ScopeParse {
  if (raw.includes(',')) return { ok: false, problem: 'must separate scope values with spaces; commas are not allowed' }
  const values = raw.split(' ').filter((s) => s !== '')
  if (values.length === 0) return { ok: false, problem: 'must name at least one scope value' }
  const scopes: Scope[] = []
  for (const value of values) {
    if (!isScope(value)) return { ok: false, problem: `has an unknown scope value "${value}"` }
    if (!scopes.includes(value)) scopes.push(value)
  }
  return { ok: true, scopes }
}

/** Whether a token's scopes allow an operation: its own scope, or the family-wide `api` / `client_api`. */
export function grants(scopes: readonly Scope[], access: OperationAccess): boolean {
  switch (access.family) {
    case 'server':
      return scopes.includes('api') || (access.scope !== null && scopes.includes(access.scope))
    case 'client':
      return scopes.includes('client_api') || (access.scope !== null && scopes.includes(access.scope))
    case 'management':
    case 'token':
      return true
    default: {
      const _never: never = access.family
      return _never
    }
  }
}
