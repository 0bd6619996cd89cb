import { EngineError, isEngineError, quote } from '../errors'
import { withoutUndefined } from './parse'
import * as v from './valibot'

/**
 * One argument of an operation before its per-call options: an id (`id:campaignId`, a string; `id?:`
 * may also be null), or a body, query, link or headers, which the operation's own schema checks.
 */
type Argument = `id:${string}` | `id?:${string}` | 'body' | 'query' | 'link' | 'headers'

/** The arguments of an operation, in order; its per-call options always come after them. */
type Signature = readonly Argument[] | ((args: readonly unknown[]) => readonly Argument[])

/**
 * Every operation's arguments (docs/design.md#public-surface: `op(...ids, input, options?)`), so that
 * the engine's binding checks ids and options in one place before any operation runs: an id that is
 * not a string would otherwise reach string functions, a misspelt option would be ignored.
 * test/operations/arguments.test.ts keeps this table equal to the engine's operations (their names at run
 * time; where their ids stand at compile time).
 */
export const SIGNATURES = {
  'customers.create': ['body'],
  'customers.get': ['id:idOrSourceId'],
  'customers.listActivity': ['id:idOrSourceId', 'query'],
  'customers.enterSegment': ['id:idOrSourceId', 'id:segmentId'],
  'customers.leaveSegment': ['id:idOrSourceId', 'id:segmentId'],
  'validations.validateStackable': ['body'],
  'redemptions.redeemStackable': ['body'],
  'redemptions.rollbackStackable': ['id:parentRedemptionId', 'body'],
  'redemptions.rollback': ['id:redemptionId', 'body'],
  'redemptions.get': ['id:redemptionId'],
  'promotions.create': ['body'],
  'promotions.tiers.create': ['id:campaignId', 'body'],
  'promotions.tiers.get': ['id:id'],
  'promotions.tiers.list': ['id:campaignId'],
  'promotions.tiers.enable': ['id:id'],
  'promotions.tiers.disable': ['id:id'],
  'promotions.stacks.createInCampaign': ['id:campaignId', 'body'],
  'promotions.stacks.get': ['id:id'],
  'promotions.stacks.list': ['query'],
  'promotions.stacks.listInCampaign': ['id:campaignId', 'query'],
  'validationRules.create': ['body'],
  'validationRules.get': ['id:id'],
  'validationRules.createAssignment': ['id:ruleId', 'body'],
  'validationRules.listAssignments': ['id:relatedObjectId'],
  'stackingRules.list': ['id:projectId'],
  'stackingRules.get': ['id:projectId'],
  'stackingRules.create': ['id:projectId', 'body'],
  'stackingRules.update': ['id:projectId', 'id:stackingRulesId', 'body'],
  'campaigns.create': ['body'],
  'campaigns.get': ['id:campaignId'],
  'vouchers.create': ['body'],
  'vouchers.bulkUpdate': ['body'],
  'vouchers.releaseValidationSession': ['id:code', 'id:sessionKey'],
  'vouchers.get': ['id:code'],
  'categories.create': ['body'],
  'categories.get': ['id:categoryId'],
  'products.create': ['body'],
  'products.createSku': ['id:productId', 'body'],
  'products.listSkus': ['id:productId', 'query'],
  'products.createCollection': ['body'],
  'products.getCollection': ['id:collectionId'],
  'auth.createApplication': ['body'],
  'auth.issueToken': ['headers', 'body'],
  'auth.revokeToken': ['headers', 'body'],
  'auth.authenticate': ['body'],
  'auth.rotateSecret': ['id:appId', 'body'],
  'metadataSchemas.create': ['body'],
  'metadataSchemas.get': ['id:resource'],
  'metadataSchemas.list': [],
  'asyncActions.get': ['id:id'],
  'asyncActions.runPending': [],
  'exports.createCampaignTransactionsExport': ['id:campaignIdOrName', 'body'],
  'exports.create': ['body'],
  'exports.get': ['id:id'],
  'files.get': ['id:fileId'],
  'files.download': ['id:fileId', 'link'],
  'publications.create': ['body'],
  'referrals.publish': ['id:campaignIdOrName', 'body'],
  // With a campaign (two ids) or without (the member's id, then the query), as the SDK calls it.
  'referrals.listHolders': (args) =>
    typeof args[1] === 'string' ? ['id:campaignId', 'id:memberId', 'query'] : ['id:memberId', 'query'],
  'templates.createCampaignTemplate': ['body'],
  'templates.getCampaignTemplate': ['id:id'],
  'templates.listCampaignTemplates': ['query'],
  'templates.createCampaignFromTemplate': ['id:templateId', 'body'],
  'loyalties.qualifications': ['id:campaignId', 'body'],
  'loyalties.create': ['body'],
  'loyalties.get': ['id:campaignId'],
  'loyalties.list': ['query'],
  'loyalties.createMember': ['id:campaignId', 'body'],
  'loyalties.getMember': ['id?:campaignId', 'id:memberId'],
  'loyalties.getMemberTier': ['id?:campaignId', 'id:memberId'],
  'loyalties.createEarningRule': ['id:campaignId', 'body'],
  'loyalties.listEarningRules': ['id:campaignId', 'query'],
  'loyalties.createTiers': ['id:campaignId', 'body'],
  'loyalties.listTiers': ['id:campaignId', 'query'],
  'loyalties.createRewardAssignments': ['id:campaignId', 'body'],
  'loyalties.redeemReward': ['id?:campaignId', 'id:memberId', 'body'],
  'qualifications.checkEligibility': ['body'],
  'qualifications.bestStack': ['body'],
  'rewards.create': ['body'],
  'rewards.get': ['id:rewardId'],
  'rewards.createAssignment': ['id:rewardId', 'body'],
  // `create(name, body)` as the SDK calls it, or `create(body)` with `body.event` (the HTTP body as is).
  'events.create': (args) => (typeof args[0] === 'string' ? ['id:name', 'body'] : ['body']),
  'orders.create': ['body'],
  'orders.update': ['id:orderId', 'body'],
  'orders.get': ['id:orderId'],
  'maintenance.purgeExpired': ['body'],
  'maintenance.trimChangeFeed': ['body'],
  'maintenance.backfillCustomerSummaries': ['body'],
  'maintenance.backfillSessionLocks': ['body'],
  'maintenance.backfillCardTransactions': ['body'],
  'maintenance.backfillUnitBudgets': ['body'],
  'maintenance.foldPeriodCounters': ['body'],
} as const satisfies Readonly<Record<string, Signature>>

const BY_PATH: Readonly<Record<string, Signature | undefined>> = SIGNATURES

/**
 * The documented key for an `invalid_payload` error of the operation at `path`: a list operation's
 * bad query is `invalid_query_params` (docs/errors.md#bad-input-400); any other error as it is. Only
 * the key changes: code, field path, message and details stay, so the caller still learns which field
 * to fix. Bodies keep `invalid_payload`: the hosted service answers so for a body that breaks its
 * schema, even where its error guide has a key for the object (docs/behaviour.md#documented-error-keys).
 */
export function documentedError(path: string, args: readonly unknown[], error: unknown): unknown {
  if (!isEngineError(error) || error.key !== 'invalid_payload' || isArgumentPath(error.path)) return error
  if (!argumentsOf(path, args)?.includes('query')) return error
  // A copy with every own field (message, details, path, stack) as it was and the key replaced.
  const fields = Object.getOwnPropertyDescriptors(error)
  const key = { ...fields.key, value: 'invalid_query_params' }
  return Object.create(Object.getPrototypeOf(error), { ...fields, key }) as EngineError
}

/**
 * An id argument (`campaignId`, `parentRedemptionId`) or a per-call option (`idempotencyKey`): the
 * operations name them in camelCase, the interface's body and query fields are snake_case, so a path
 * in camelCase is never a field of the object the documented key speaks of.
 */
function isArgumentPath(path: string | undefined): boolean {
  return path !== undefined && /^[a-z]+(?:[A-Z][a-z]*)+$/.test(path)
}

// Its form (printable, at most 255 characters) is checked where it is used (src/operations/idempotency.ts).
const idempotencyKey = v.optional(v.string('must be a string'))

/** `CallOptions` (src/call-options.ts). */
const callOptions = v.strictObject({ idempotencyKey })

/**
 * Per-call options beyond `CallOptions`: the family calling, which the HTTP handler passes; the
 * signal that stops a run of async actions, which a host's worker passes.
 */
const EXTRA_OPTIONS: Readonly<Record<string, v.GenericSchema>> = {
  'qualifications.checkEligibility': v.strictObject({
    idempotencyKey,
    side: v.optional(v.picklist(['server', 'client'], 'must be server or client')),
  }),
  'asyncActions.runPending': v.strictObject({
    idempotencyKey,
    signal: v.optional(v.instance(AbortSignal, 'must be an AbortSignal')),
  }),
}

/**
 * Checks the ids and the per-call options of a call to the operation at `path` (a dotted path of the
 * engine, `promotions.tiers.create`): a 400 `EngineError` naming the argument and the field, before
 * the operation reads or writes anything. Bodies are left to the operation's schema.
 */
export function checkArguments(path: string, args: readonly unknown[]): void {
  const expected = argumentsOf(path, args)
  if (expected === undefined) return
  let last = args.length
  while (last > 0 && args[last - 1] === undefined) last--
  if (last > expected.length + 1) {
    throw new EngineError({
      code: 400,
      key: 'invalid_call_options',
      message: 'Too many arguments',
      details: `${path} takes ${[...expected.map(nameOf), 'options'].join(', ')}; it got ${last} arguments`,
      path: `arguments[${expected.length + 1}]`,
    })
  }
  expected.forEach((argument, i) => {
    const value = args[i]
    // Headers that are not an object carry no credentials: the operation answers 401 naming the
    // missing header, as for absent ones (docs/limits.md#arguments-and-per-call-options).
    if (argument === 'headers') return
    // No schema reads a link: its absent fields would make the caller trusted.
    if (argument === 'link') {
      const isObject = typeof value === 'object' && value !== null && !Array.isArray(value)
      if (isObject || value === undefined) return
      throw new EngineError({
        code: 400,
        key: 'invalid_payload',
        message: 'Invalid payload',
        details: `Argument ${argument} of ${path} must be an object but received ${received(value)}`,
        path: argument,
      })
    }
    if (!argument.startsWith('id')) return
    if (typeof value === 'string' || (value === null && argument.startsWith('id?'))) return
    const name = nameOf(argument)
    throw new EngineError({
      code: 400,
      key: 'invalid_payload',
      message: 'Invalid payload',
      details: `Argument ${name} of ${path} must be a string${argument.startsWith('id?') ? ' or null' : ''} but received ${received(value)}`,
      path: name,
    })
  })
  checkOptions(path, args[expected.length])
}

/** The arguments before the options of this call of the operation at `path` (none known: undefined). */
export function argumentsOf(path: string, args: readonly unknown[]): readonly Argument[] | undefined {
  const signature = BY_PATH[path]
  return typeof signature === 'function' ? signature(args) : signature
}

function checkOptions(path: string, options: unknown): void {
  if (options === undefined) return
  const schema = EXTRA_OPTIONS[path] ?? callOptions
  const isPlain = typeof options === 'object' && options !== null && !Array.isArray(options)
  const result = isPlain ? v.safeParse(schema, withoutUndefined(options)) : undefined
  if (result?.success) return
  const issue = result?.issues[0]
  const field = issue?.path?.[0]?.key
  const known = Object.keys((schema as unknown as { entries: object }).entries)
  const where = field === undefined ? 'options' : `options.${quote(String(field))}`
  const problem =
    issue === undefined
      ? `must be an object such as { idempotencyKey: '…' } but received ${received(options)}`
      : issue.expected === 'never'
        ? `is not a per-call option of ${path}; use ${known.join(', ')}`
        : issue.message
  throw new EngineError({
    code: 400,
    key: 'invalid_call_options',
    message: 'Invalid call options',
    details: `${where} ${problem}`,
    path: where,
  })
}

function nameOf(argument: Argument): string {
  return argument.slice(argument.indexOf(':') + 1)
}

function received(value: unknown): string {
  if (value === null) return 'null'
  if (Array.isArray(value)) return 'an array'
  return typeof value
}
