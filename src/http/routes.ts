import type { OperationName } from '../rules/scopes'

export type HttpMethod = 'GET' | 'POST' | 'PUT' | 'DELETE'

/**
 * Where one argument of the operation comes from: a path parameter, the whole query (parsed from the
 * bracket notation, validated by the operation like a body), one query parameter, the JSON body, the
 * request headers (the token endpoints check the keys themselves), the handler's project id, null, or
 * `caller`: `{ side }`, the family calling (`server` or `client`), for an operation that answers each
 * side differently.
 */
export type ArgumentSource =
  | `path:${string}`
  | 'query'
  | `query:${string}`
  | 'body'
  | 'headers'
  | 'project'
  | 'null'
  | 'caller'

export interface Route {
  method: HttpMethod
  /** `/v1/vouchers/:code`: a `:name` segment is a path parameter. */
  path: string
  /**
   * The operation of the operation table (`vouchers.create`): its family and scope decide who may
   * call the route. Typed by name where the table is built; a plain string here, the table is internal.
   */
  operation: string
  /** The engine function's arguments, in order. */
  args: readonly ArgumentSource[]
  /** Body fields filled from the path or the query (where the SDK sends them there). */
  bodyFields?: Readonly<Record<string, `path:${string}` | `query:${string}`>>
  /** Another engine function, chosen by a body field's value (one endpoint, several resources). */
  callBy?: { field: string; calls: Readonly<Record<string, string>> }
  /** Unsafe: an `Idempotency-Key` header makes it safe to retry (the operation's `idempotencyKey`). */
  idempotent?: true
  /** The result is a stored file, answered as a streamed download instead of JSON. */
  download?: true
  /**
   * A signed link may stand for the keys: a request whose query has `expires` or `signature` is not
   * asked for keys, and the operation checks the link instead (a file's url, docs/http.md).
   */
  signedLink?: true
  /** Path parameter values this route does not take (words other endpoints of the SDK use there). */
  except?: Readonly<Record<string, readonly string[]>>
}

const get = (path: string, operation: OperationName, ...args: ArgumentSource[]): Route => ({
  method: 'GET',
  path,
  operation,
  args,
})
const post = (path: string, operation: OperationName, ...args: ArgumentSource[]): Route => ({
  method: 'POST',
  path,
  operation,
  args,
})
const unsafe = (route: Route): Route => ({ ...route, idempotent: true })

/**
 * Every endpoint the handler serves: the interface's, plus the paths the official SDK uses for the
 * same operations. Data only, so a host can mount the routes in any framework (see docs/http.md).
 * Client-side operations (`client.*`) call the server-side function of the same name.
 */
export const ROUTES: readonly Route[] = [
  post('/v1/oauth/token', 'auth.issueToken', 'headers', 'body'),
  post('/v1/oauth/token/revoke', 'auth.revokeToken', 'headers', 'body'),

  get('/v1/loyalties', 'loyalties.list', 'query'),
  post('/v1/loyalties', 'loyalties.create', 'body'),
  get('/v1/loyalties/:campaignId', 'loyalties.get', 'path:campaignId'),
  unsafe(post('/v1/loyalties/:campaignId/members', 'loyalties.createMember', 'path:campaignId', 'body')),
  get('/v1/loyalties/:campaignId/members/:memberId', 'loyalties.getMember', 'path:campaignId', 'path:memberId'),
  get('/v1/loyalties/members/:memberId', 'loyalties.getMember', 'null', 'path:memberId'),
  get('/v1/loyalties/members/:memberId/tier', 'loyalties.getMemberTier', 'null', 'path:memberId'),
  unsafe(
    post(
      '/v1/loyalties/:campaignId/members/:memberId/redemption',
      'loyalties.redeemReward',
      'path:campaignId',
      'path:memberId',
      'body',
    ),
  ),
  unsafe(post('/v1/loyalties/members/:memberId/redemption', 'loyalties.redeemReward', 'null', 'path:memberId', 'body')),
  get('/v1/loyalties/:campaignId/earning-rules', 'loyalties.listEarningRules', 'path:campaignId', 'query'),
  post('/v1/loyalties/:campaignId/earning-rules', 'loyalties.createEarningRule', 'path:campaignId', 'body'),
  get('/v1/loyalties/:campaignId/tiers', 'loyalties.listTiers', 'path:campaignId', 'query'),
  post('/v1/loyalties/:campaignId/tiers', 'loyalties.createTiers', 'path:campaignId', 'body'),
  post('/v1/loyalties/:campaignId/rewards', 'loyalties.createRewardAssignments', 'path:campaignId', 'body'),

  post('/v1/rewards', 'rewards.create', 'body'),
  get('/v1/rewards/:rewardId', 'rewards.get', 'path:rewardId'),
  post('/v1/rewards/:rewardId/assignments', 'rewards.createAssignment', 'path:rewardId', 'body'),

  post('/v1/validations', 'validations.validateStackable', 'body'),
  post('/v1/qualifications', 'qualifications.checkEligibility', 'body'),
  post('/v1/qualifications/best-stack', 'qualifications.bestStack', 'body'),
  post('/v1/loyalties/:campaignId/qualifications', 'loyalties.qualifications', 'path:campaignId', 'body'),
  unsafe(post('/v1/redemptions', 'redemptions.redeemStackable', 'body')),
  get('/v1/redemptions/:redemptionId', 'redemptions.get', 'path:redemptionId'),
  {
    ...unsafe(
      post('/v1/redemptions/:redemptionId/rollbacks', 'redemptions.rollbackStackable', 'path:redemptionId', 'body'),
    ),
    bodyFields: { reason: 'query:reason', tracking_id: 'query:tracking_id' },
  },
  {
    ...unsafe(post('/v1/redemptions/:redemptionId/rollback', 'redemptions.rollback', 'path:redemptionId', 'body')),
    bodyFields: { reason: 'query:reason', tracking_id: 'query:tracking_id' },
  },

  {
    ...post('/v1/campaigns', 'campaigns.create', 'body'),
    // The SDK creates promotions (and may create programs) through `POST /v1/campaigns`.
    callBy: { field: 'campaign_type', calls: { PROMOTION: 'promotions.create', LOYALTY_PROGRAM: 'loyalties.create' } },
  },
  get('/v1/campaigns/:campaignId', 'campaigns.get', 'path:campaignId'),
  post(
    '/v1/campaigns/:campaignId/transactions/export',
    'exports.createCampaignTransactionsExport',
    'path:campaignId',
    'body',
  ),

  post('/v1/vouchers', 'vouchers.create', 'body'),
  post('/v1/vouchers/bulk/async', 'vouchers.bulkUpdate', 'body'),
  {
    ...post('/v1/vouchers/:code', 'vouchers.create', 'body'),
    bodyFields: { code: 'path:code' },
    // `POST /v1/vouchers/import`, `/qualification`, … are other SDK calls, not codes to create.
    except: { code: ['import', 'importCSV', 'qualification'] },
  },
  get('/v1/vouchers/:code', 'vouchers.get', 'path:code'),
  {
    method: 'DELETE',
    path: '/v1/vouchers/:code/sessions/:sessionKey',
    operation: 'vouchers.releaseValidationSession',
    args: ['path:code', 'path:sessionKey'],
  },

  get('/v1/promotions/stacks', 'promotions.stacks.list', 'query'),
  get('/v1/promotions/:campaignId/stacks', 'promotions.stacks.listInCampaign', 'path:campaignId', 'query'),
  post('/v1/promotions/:campaignId/stacks', 'promotions.stacks.createInCampaign', 'path:campaignId', 'body'),
  get('/v1/promotions/:campaignId/stacks/:stackId', 'promotions.stacks.get', 'path:stackId'),
  get('/v1/promotions/:campaignId/tiers', 'promotions.tiers.list', 'path:campaignId'),
  post('/v1/promotions/:campaignId/tiers', 'promotions.tiers.create', 'path:campaignId', 'body'),
  get('/v1/promotions/tiers/:tierId', 'promotions.tiers.get', 'path:tierId'),
  post('/v1/promotions/tiers/:tierId/enable', 'promotions.tiers.enable', 'path:tierId'),
  post('/v1/promotions/tiers/:tierId/disable', 'promotions.tiers.disable', 'path:tierId'),

  post('/v1/customers', 'customers.create', 'body'),
  get('/v1/customers/:customerId', 'customers.get', 'path:customerId'),
  get('/v1/customers/:customerId/activity', 'customers.listActivity', 'path:customerId', 'query'),
  get('/v1/customers/:customerId/activities', 'customers.listActivity', 'path:customerId', 'query'),

  unsafe(post('/v1/orders', 'orders.create', 'body')),
  get('/v1/orders/:orderId', 'orders.get', 'path:orderId'),
  { method: 'PUT', path: '/v1/orders/:orderId', operation: 'orders.update', args: ['path:orderId', 'body'] },

  unsafe(post('/v1/events', 'events.create', 'body')),
  post('/v1/categories', 'categories.create', 'body'),
  get('/v1/categories/:categoryId', 'categories.get', 'path:categoryId'),
  get('/v1/referrals/members/:memberId/holders', 'referrals.listHolders', 'path:memberId', 'query'),
  get(
    '/v1/referrals/:campaignId/members/:memberId/holders',
    'referrals.listHolders',
    'path:memberId',
    'query',
    'path:campaignId',
  ),
  unsafe(post('/v1/publications', 'publications.create', 'body')),

  get('/v1/templates/campaigns', 'templates.listCampaignTemplates', 'query'),
  post('/v1/templates/campaigns', 'templates.createCampaignTemplate', 'body'),
  get('/v1/templates/campaigns/:templateId', 'templates.getCampaignTemplate', 'path:templateId'),
  post(
    '/v1/templates/campaigns/:templateId/campaign',
    'templates.createCampaignFromTemplate',
    'path:templateId',
    'body',
  ),
  get('/v1/metadata-schemas', 'metadataSchemas.list'),
  post('/v1/metadata-schemas', 'metadataSchemas.create', 'body'),
  get('/v1/metadata-schemas/:resource', 'metadataSchemas.get', 'path:resource'),
  post('/v1/exports', 'exports.create', 'body'),
  get('/v1/exports/:exportId', 'exports.get', 'path:exportId'),
  // The url of an export's file when the engine's `filesBaseUrl` is `<server>/v1/files/`: with the keys,
  // or signed (`?expires=…&signature=…`, as `exports.get` gives it) without them.
  { ...get('/v1/files/:fileId', 'files.download', 'path:fileId', 'query'), download: true, signedLink: true },

  post('/v1/products', 'products.create', 'body'),
  post('/v1/products/:productId/skus', 'products.createSku', 'path:productId', 'body'),
  get('/v1/products/:productId/skus', 'products.listSkus', 'path:productId', 'query'),
  post('/v1/product-collections', 'products.createCollection', 'body'),
  get('/v1/product-collections/:collectionId', 'products.getCollection', 'path:collectionId'),

  get('/v1/async-actions/:asyncActionId', 'asyncActions.get', 'path:asyncActionId'),
  post('/v1/async-actions/run-pending', 'asyncActions.runPending'),

  post('/v1/validation-rules', 'validationRules.create', 'body'),
  get('/v1/validation-rules/:ruleId', 'validationRules.get', 'path:ruleId'),
  post('/v1/validation-rules/:ruleId/assignments', 'validationRules.createAssignment', 'path:ruleId', 'body'),

  get('/management/v1/projects/:projectId/stacking-rules', 'stackingRules.list', 'path:projectId'),
  post('/management/v1/projects/:projectId/stacking-rules', 'stackingRules.create', 'path:projectId', 'body'),
  {
    method: 'PUT',
    path: '/management/v1/projects/:projectId/stacking-rules/:stackingRulesId',
    operation: 'stackingRules.update',
    args: ['path:projectId', 'path:stackingRulesId', 'body'],
  },

  post('/client/v1/validations', 'client.validations.validateStackable', 'body'),
  post('/client/v1/qualifications', 'client.qualifications.checkEligibility', 'body', 'caller'),
  unsafe(post('/client/v1/redemptions', 'client.redemptions.redeemStackable', 'body')),
  unsafe(post('/client/v1/events', 'client.events.create', 'body')),
]
