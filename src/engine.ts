import { EngineError } from './errors'
import { createIdGenerator, systemRandom } from './ids'
import { createMemoryStore } from './memory/store'
import type { StackingRules } from './model/stacking'
import { ROUNDING_MODES, type RoundingMode } from './money'
import { asyncActions, createAsyncHandlers, registerAsyncHandler } from './operations/async-actions'
import { auth } from './operations/auth'
import { campaigns } from './operations/campaigns'
import { categories } from './operations/categories'
import type { Context } from './operations/context'
import { customers } from './operations/customers'
import { events } from './operations/events'
import { exports, TRANSACTIONS_EXPORT_ACTION, transactionsExportHandler } from './operations/exports'
import { files } from './operations/files'
import { loyalties } from './operations/loyalties'
import { pendingPointsHandler, pointsExpiryHandler, tierExpiryHandler } from './operations/loyalty-earning'
import { loyaltyEstimates } from './operations/loyalty-estimate'
import { PENDING_POINTS_ACTION, POINTS_EXPIRY_ACTION } from './operations/loyalty-ledger'
import { LOYALTY_CODES_ACTION, loyaltyCodesFailure, loyaltyCodesHandler } from './operations/loyalty-members'
import { TIER_EXPIRY_ACTION } from './operations/loyalty-tiers'
import { metadataSchemas } from './operations/metadata-schemas'
import { orders } from './operations/orders'
import { products } from './operations/products'
import { promotions } from './operations/promotions'
import { publications } from './operations/publications'
import { qualifications } from './operations/qualifications'
import { redemptions } from './operations/redemptions'
import { referrals } from './operations/referrals'
import { rewards } from './operations/rewards'
import { stackingRules } from './operations/stacking-rules'
import { templates } from './operations/templates'
import { validationRules } from './operations/validation-rules'
import { validations } from './operations/validations'
import { VOUCHERS_BULK_UPDATE_ACTION, vouchers, vouchersBulkUpdateHandler } from './operations/vouchers'
import type { Clock, IdGenerator, RandomSource, Store } from './ports'
import { checkBounds, type InputLimits, resolveLimits } from './schema/bounds'

export interface EngineOptions {
  /** Storage adapter; the in-memory store by default. */
  store?: Store
  /** Source of "now"; the system clock by default. */
  clock?: Clock
  /** Id generator; prefixed random ids like the hosted service's by default. */
  ids?: IdGenerator
  /** Randomness for codes (and ids when `ids` is not given). Pass `seededRandom(n)` for reproducible runs. */
  random?: RandomSource
  /** IANA time zone for validity hours, days and calendar periods. Default `UTC`. */
  timezone?: string
  /** Rounding of every computed money amount. Default `half-up`. */
  rounding?: RoundingMode
  /** Project stacking rules in force until one is created with `stackingRules.create`. */
  stackingRules?: Partial<StackingRules>
  /** Re-reads after a commit conflict before failing with 409. Default 5. */
  maxRetries?: number
  /** OAuth access token lifetime in seconds. Default 3600. */
  tokenTtlSeconds?: number
  /** The project id (management endpoints name it). Default `proj_default`. */
  projectId?: string
  /**
   * Bounds on every call's input (docs/limits.md): nesting `depth` 32, `stringLength` 65,536,
   * `arrayLength` 10,000, `objectKeys` 1,000, `requestBytes` 1 MiB by default; give any to change it.
   */
  limits?: Partial<InputLimits>
}

export const systemClock: Clock = { now: () => new Date() }

function contextOf(options: EngineOptions): Context {
  const timezone = options.timezone ?? 'UTC'
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: timezone })
  } catch {
    throw new EngineError({
      code: 400,
      key: 'invalid_timezone',
      message: 'Invalid time zone',
      details: `Unknown IANA time zone ${timezone}`,
      path: 'timezone',
    })
  }
  const rounding = options.rounding ?? 'half-up'
  if (!ROUNDING_MODES.includes(rounding)) {
    throw EngineError.invalid('rounding', `must be one of ${ROUNDING_MODES.join(', ')}`)
  }
  const maxRetries = integerOption('maxRetries', options.maxRetries, 5, 0)
  const tokenTtlSeconds = integerOption('tokenTtlSeconds', options.tokenTtlSeconds, 3600, 1)
  const projectId = options.projectId ?? 'proj_default'
  if (typeof projectId !== 'string' || projectId === '')
    throw EngineError.invalid('projectId', 'must be a non-empty string')
  const random = options.random ?? systemRandom
  return {
    store: options.store ?? createMemoryStore(),
    clock: options.clock ?? systemClock,
    ids: options.ids ?? createIdGenerator(random),
    random,
    config: {
      timezone,
      rounding,
      stackingRules: options.stackingRules,
      maxRetries,
      tokenTtlSeconds,
      projectId,
      limits: resolveLimits(options.limits),
    },
    asyncHandlers: createAsyncHandlers(),
    sequence: counter(),
  }
}

/** A whole-number option: NaN, Infinity or a fraction would break every operation later, not here. */
function integerOption(name: string, given: unknown, fallback: number, min: number): number {
  if (given === undefined) return fallback
  if (!Number.isSafeInteger(given) || (given as number) < min) {
    throw EngineError.invalid(name, `must be an integer ≥ ${min}`)
  }
  return given as number
}

function counter(): Context['sequence'] {
  let n = 0
  return { next: () => ++n }
}

/**
 * Every operation of a namespace (and of its nested ones, like `promotions.tiers`) behind the input
 * check: arguments that are not JSON or exceed the limits are refused before the operation runs.
 */
function bounded<T extends object>(namespace: T, limits: InputLimits): T {
  const out: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(namespace)) {
    if (typeof member === 'function') {
      out[name] = async (...args: unknown[]) => {
        checkBounds(args, limits)
        return member(...args)
      }
    } else {
      out[name] = member !== null && typeof member === 'object' ? bounded(member, limits) : member
    }
  }
  return out as T
}

function withBoundedInput<T extends { context: Context }>(engine: T): T {
  const { context, ...namespaces } = engine
  return { context, ...bounded(namespaces, context.config.limits) } as T
}

/** Binds a store, a clock, ids and configuration to every operation of the interface. */
export function createEngine(options: EngineOptions = {}) {
  const ctx = contextOf(options)
  // The work `asyncActions.runPending()` knows how to do, one line per async action type.
  registerAsyncHandler(ctx, TRANSACTIONS_EXPORT_ACTION, transactionsExportHandler)
  registerAsyncHandler(ctx, VOUCHERS_BULK_UPDATE_ACTION, vouchersBulkUpdateHandler)
  registerAsyncHandler(ctx, LOYALTY_CODES_ACTION, { run: loyaltyCodesHandler, onFailure: loyaltyCodesFailure })
  registerAsyncHandler(ctx, POINTS_EXPIRY_ACTION, { run: pointsExpiryHandler, datedAtDue: true })
  registerAsyncHandler(ctx, PENDING_POINTS_ACTION, { run: pendingPointsHandler, datedAtDue: true })
  registerAsyncHandler(ctx, TIER_EXPIRY_ACTION, { run: tierExpiryHandler, datedAtDue: true })
  return withBoundedInput({
    /** The ports and configuration the operations run on (for adapters and tests). */
    context: ctx,
    customers: customers(ctx),
    validations: validations(ctx),
    redemptions: redemptions(ctx),
    promotions: promotions(ctx),
    validationRules: validationRules(ctx),
    stackingRules: stackingRules(ctx),
    campaigns: campaigns(ctx),
    vouchers: vouchers(ctx),
    categories: categories(ctx),
    products: products(ctx),
    auth: auth(ctx),
    metadataSchemas: metadataSchemas(ctx),
    asyncActions: asyncActions(ctx),
    exports: exports(ctx),
    files: files(ctx),
    publications: publications(ctx),
    referrals: referrals(ctx),
    templates: templates(ctx),
    loyalties: { ...loyalties(ctx), ...loyaltyEstimates(ctx) },
    qualifications: qualifications(ctx),
    rewards: rewards(ctx),
    events: events(ctx),
    orders: orders(ctx),
  })
}

export type Engine = ReturnType<typeof createEngine>
