import { randomBytes } from 'node:crypto'
import { createIdGenerator, systemRandom } from './ids'
import { createMemoryStore } from './memory/memory-store'
import type { StackingRules } from './model/stacking'
import type { RoundingMode } from './money'
import { asyncActions } from './operations/admin/async-actions'
import { auth } from './operations/admin/auth'
import {
  exports,
  OBJECTS_EXPORT_ACTION,
  objectsExportHandler,
  TRANSACTIONS_EXPORT_ACTION,
} from './operations/admin/exports'
import { files } from './operations/admin/files'
import { maintenance } from './operations/admin/maintenance'
import { metadataSchemas } from './operations/admin/metadata-schemas'
import { DEFAULT_FILES_BASE_URL } from './operations/admin/stored-files'
import { transactionsExportHandler } from './operations/admin/transactions-export'
import { campaigns } from './operations/campaigns/campaigns'
import { categories } from './operations/campaigns/categories'
import { promotions } from './operations/campaigns/promotions'
import { stackingRules } from './operations/campaigns/stacking-rules'
import { templates } from './operations/campaigns/templates'
import { validationRules } from './operations/campaigns/validation-rules'
import { qualifications } from './operations/checkout/qualifications'
import { redemptions } from './operations/checkout/redemptions'
import { validations } from './operations/checkout/validations'
import type { AuthenticationMode } from './operations/kernel/engine-config'
import { InFlight } from './operations/kernel/in-flight'
import { createAsyncHandlers, registerAsyncHandler } from './operations/kernel/jobs'
import { DEFAULT_LOAD_HINTS, loadHints } from './operations/kernel/load-hints'
import { upgradedStore } from './operations/kernel/shape-versions'
import type { Context } from './operations/kernel/unit-of-work'
import { loyaltyEstimates } from './operations/loyalty/estimates'
import { loyalties } from './operations/loyalty/loyalties'
import { TIER_EXPIRY_ACTION } from './operations/loyalty/member-tiers'
import { LOYALTY_CODES_ACTION, loyaltyCodesFailure, loyaltyCodesHandler } from './operations/loyalty/members'
import { PENDING_POINTS_ACTION, POINTS_EXPIRY_ACTION } from './operations/loyalty/points-ledger'
import { rewards } from './operations/loyalty/rewards'
import { pendingPointsHandler, pointsExpiryHandler, tierExpiryHandler } from './operations/loyalty/scheduled-points'
import { TIERS_REFRESH_ACTION, tiersRefreshHandler } from './operations/loyalty/tier-refresh'
import { referrals } from './operations/referrals/referrals'
import { customers } from './operations/shop/customers'
import { events } from './operations/shop/events'
import { orders } from './operations/shop/orders'
import { products } from './operations/shop/products'
import { publications } from './operations/vouchers/publications'
import { VOUCHERS_BULK_UPDATE_ACTION, vouchers, vouchersBulkUpdateHandler } from './operations/vouchers/vouchers'
import type { RawOperations } from './raw'
import { checkArguments, documentedError } from './schema/arguments'
import { checkEngineOptions } from './schema/engine-options'
import { checkedClock, checkedIds, checkedRandom } from './schema/injected'
import { checkBounds, type InputLimits, resolveLimits } from './schema/input-limits'
import type { Clock, IdGenerator, RandomSource, Store } from './storage/ports'

/** Every option is optional; one set to `undefined` is absent. Checked by `createEngine` at once. */
export interface EngineOptions {
  /** Storage adapter; the in-memory store by default. */
  store?: Store | undefined
  /** Source of "now"; the system clock by default. `now()` must return a valid Date (checked where used). */
  clock?: Clock | undefined
  /** Id generator; prefixed random ids like the hosted service's by default. Each id must be a new non-empty string. */
  ids?: IdGenerator | undefined
  /** Randomness for codes (and ids when `ids` is not given). Pass `seededRandom(n)` for reproducible runs. */
  random?: RandomSource | undefined
  /** IANA time zone for validity hours, days and calendar periods. Default `UTC`. */
  timezone?: string | undefined
  /** Rounding of every computed money amount. Default `half-up`. */
  rounding?: RoundingMode | undefined
  /** Project stacking rules in force until one is created with `stackingRules.create`. */
  stackingRules?: Partial<StackingRules> | undefined
  /** Re-reads after a commit conflict before failing with 409. Default 5. */
  maxRetries?: number | undefined
  /** OAuth access token lifetime in seconds. Default 3600. */
  tokenTtlSeconds?: number | undefined
  /** The project id (management endpoints name it). Default `proj_default`. */
  projectId?: string | undefined
  /**
   * Bounds on every call's input (docs/limits.md): nesting `depth` 32, `stringLength` 65,536,
   * `arrayLength` 10,000, `objectKeys` 1,000, `requestBytes` 1 MiB by default; give any to change it.
   */
  limits?: Partial<InputLimits> | undefined
  /**
   * How server and client requests authenticate: `keys-and-bearer` (the default, the interface's rule:
   * application keys plus an OAuth bearer token) or `keys` (the keys alone, as the hosted service
   * accepts; a bearer token, when sent, is still checked and its scopes apply).
   */
  authentication?: AuthenticationMode | undefined
  /** How long an idempotency key is remembered, in seconds. Default 86400 (a day). */
  idempotencyTtlSeconds?: number | undefined
  /**
   * Where a host serves stored files (export CSVs), e.g. `https://promo.example/v1/files/`: a file's
   * url is this prefix and its id. Default `memory://files/` (nothing serves it).
   */
  filesBaseUrl?: string | undefined
  /**
   * The secret that signs file links (an export's url carries `expires` and `signature`, so it downloads
   * without the API keys): at least 32 characters. Default: random per engine, so links work only
   * against the process that made them; give every process of a deployment the same secret.
   */
  filesSecret?: string | undefined
  /** How long a signed file link works, in seconds (each `exports.get` signs a fresh one). Default 3600. */
  fileLinkTtlSeconds?: number | undefined
  /** How long a finished export file is kept before `maintenance.purgeExpired` deletes it. Default: kept. */
  fileRetentionSeconds?: number | undefined
  /**
   * How many codes, tiers, customers, order lines and rule assignments of each kind the engine
   * remembers the ids of, so that a validation or redemption starts its second level of reads with its
   * first (docs/postgres.md#loads): on a database, one round trip less. Checked against what the first
   * level reads, never trusted. Default 1000; 0 on a store that reads in this process (`inProcess`:
   * the memory store), where a read is no round trip and hints would only plan level 2 twice. 0 turns
   * it off.
   */
  loadHints?: number | undefined
}

export const systemClock: Clock = { now: () => new Date() }

function contextOf(options: EngineOptions): Context {
  checkEngineOptions(options)
  const timezone = options.timezone ?? 'UTC'
  const rounding = options.rounding ?? 'half-up'
  const maxRetries = options.maxRetries ?? 5
  const tokenTtlSeconds = options.tokenTtlSeconds ?? 3600
  const projectId = options.projectId ?? 'proj_default'
  // A host's functions are checked where they are used (src/schema/injected.ts); the defaults need not be.
  const random = options.random === undefined ? systemRandom : checkedRandom(options.random)
  const store = options.store ?? createMemoryStore()
  return new EngineContext(
    // Reads upgrade values stored in older shapes (docs/storage.md#shape-versions).
    upgradedStore(store),
    options.clock === undefined ? systemClock : checkedClock(options.clock),
    options.ids === undefined ? createIdGenerator(random) : checkedIds(options.ids),
    random,
    {
      timezone,
      rounding,
      stackingRules: options.stackingRules,
      maxRetries,
      tokenTtlSeconds,
      projectId,
      limits: resolveLimits(options.limits),
      authentication: options.authentication ?? 'keys-and-bearer',
      idempotencyTtlSeconds: options.idempotencyTtlSeconds ?? 86_400,
      filesBaseUrl: options.filesBaseUrl ?? DEFAULT_FILES_BASE_URL,
      filesSecret: options.filesSecret ?? randomBytes(32).toString('base64url'),
      fileLinkTtlSeconds: options.fileLinkTtlSeconds ?? 3600,
      fileRetentionSeconds: options.fileRetentionSeconds ?? null,
    },
    createAsyncHandlers(),
    counter(),
    new InFlight(),
    // A store that reads in this process (the memory store) has no round trip for hints to save (docs/postgres.md#loads).
    loadHints(options.loadHints ?? (store.inProcess === true ? 0 : DEFAULT_LOAD_HINTS)),
  )
}

/**
 * A class, not an object literal: every operation's optimised code reads the context, and a
 * literal's second evaluation (a process's second engine) builds its boilerplate and generalises the
 * field types that code relied on, so it is thrown away and compiled again
 * (docs/design.md#one-function-per-process).
 */
class EngineContext implements Context {
  constructor(
    public store: Context['store'],
    public clock: Context['clock'],
    public ids: Context['ids'],
    public random: Context['random'],
    public config: Context['config'],
    public asyncHandlers: Context['asyncHandlers'],
    public sequence: Context['sequence'],
    public inFlight: Context['inFlight'],
    public hints: Context['hints'],
  ) {}
}

function counter(): Context['sequence'] {
  return new Sequence()
}

/** A class: one `next` for every engine of a process, so optimised callers stay valid from one engine to the next. */
class Sequence {
  private n = 0
  next(): number {
    return ++this.n
  }
}

/**
 * Every operation of a namespace (and of its nested ones, like `promotions.tiers`) behind the input
 * checks: arguments that are not JSON or exceed the limits, ids that are not strings and unknown
 * per-call options are refused before the operation runs.
 */
function bounded<T extends object>(namespace: T, limits: InputLimits, prefix = ''): T {
  const out: Record<string, unknown> = {}
  for (const [name, member] of Object.entries(namespace)) {
    const path = `${prefix}${name}`
    if (typeof member === 'function') {
      out[name] = async (...args: unknown[]) => {
        checkBounds(args, limits)
        checkArguments(path, args)
        try {
          return await member(...args)
        } catch (error) {
          // A list's bad query gets the hosted service's key (docs/behaviour.md#documented-error-keys).
          throw documentedError(path, args, error)
        }
      }
    } else {
      out[name] = member !== null && typeof member === 'object' ? bounded(member, limits, `${path}.`) : member
    }
  }
  return out as T
}

/**
 * What an engine was configured with, resolved (defaults filled in): for hosts and adapters, e.g. the
 * HTTP handler's body limit and project id. The store, the clock and the secret that signs file links
 * stay inside the engine.
 */
export interface EngineSettings {
  readonly projectId: string
  /** IANA time zone for validity hours, days of week and calendar periods (docs/behaviour.md#time-zone). */
  readonly timezone: string
  readonly rounding: RoundingMode
  /** Bounds on every call's input, checked before the operation runs (docs/limits.md). */
  readonly limits: Readonly<InputLimits>
  /** `keys-and-bearer`: the interface's rule; `keys`: application keys alone authenticate. */
  readonly authentication: AuthenticationMode
  /** How many times an operation re-reads and recomputes after a commit conflict. */
  readonly maxRetries: number
  readonly tokenTtlSeconds: number
  readonly idempotencyTtlSeconds: number
  /** Prefix of the url of a stored file (an export's CSV): the file id follows it. */
  readonly filesBaseUrl: string
  readonly fileLinkTtlSeconds: number
  /** null: finished files are kept for ever. */
  readonly fileRetentionSeconds: number | null
}

function settingsOf(ctx: Context): EngineSettings {
  const c = ctx.config
  return Object.freeze({
    projectId: c.projectId,
    timezone: c.timezone,
    rounding: c.rounding,
    limits: Object.freeze({ ...c.limits }),
    authentication: c.authentication,
    maxRetries: c.maxRetries,
    tokenTtlSeconds: c.tokenTtlSeconds,
    idempotencyTtlSeconds: c.idempotencyTtlSeconds,
    filesBaseUrl: c.filesBaseUrl,
    fileLinkTtlSeconds: c.fileLinkTtlSeconds,
    fileRetentionSeconds: c.fileRetentionSeconds,
  })
}

/** Each engine's context, kept off the engine object: it holds the store and the file-link secret. */
const contexts = new WeakMap<object, Context>()

/**
 * The ports and configuration an engine's operations run on, for this repository's own tests and
 * internals (not exported by the package).
 */
export function engineContext(engine: object): Context {
  const ctx = contexts.get(engine)
  if (!ctx) throw new Error('engineContext: not an engine made by createEngine')
  return ctx
}

/**
 * Binds a store, a clock, ids and configuration to every operation of the interface; checks the
 * options at once (a wrong one throws an `EngineError` naming it).
 *
 * Every operation has one shape, `op(...ids, input, options?)`: ids first (`loyalties.createMember(campaignId,
 * body)`), then the typed request (`ValidationsValidateStackableParams`, … : each `<Namespace><Operation>Params`
 * type is derived from the schema that checks it), then the per-call `CallOptions`. A misspelt field is a
 * compile error. Bodies that arrive as parsed JSON (`unknown`) go through `engine.raw`, the same operations
 * typed for untrusted input: `engine.raw.validations.validateStackable(await request.json())`. Either way
 * every body is checked at run time, and a key whose value is `undefined` counts as absent.
 */
export function createEngine(options: EngineOptions = {}) {
  const ctx = contextOf(options)
  // The work `asyncActions.runPending()` knows how to do, one line per async action type.
  registerAsyncHandler(ctx, TRANSACTIONS_EXPORT_ACTION, transactionsExportHandler)
  registerAsyncHandler(ctx, OBJECTS_EXPORT_ACTION, objectsExportHandler)
  registerAsyncHandler(ctx, VOUCHERS_BULK_UPDATE_ACTION, vouchersBulkUpdateHandler)
  registerAsyncHandler(ctx, LOYALTY_CODES_ACTION, { run: loyaltyCodesHandler, onFailure: loyaltyCodesFailure })
  registerAsyncHandler(ctx, POINTS_EXPIRY_ACTION, { run: pointsExpiryHandler, datedAtDue: true })
  registerAsyncHandler(ctx, PENDING_POINTS_ACTION, { run: pendingPointsHandler, datedAtDue: true })
  registerAsyncHandler(ctx, TIER_EXPIRY_ACTION, { run: tierExpiryHandler, datedAtDue: true })
  registerAsyncHandler(ctx, TIERS_REFRESH_ACTION, tiersRefreshHandler)
  const engine = withRaw({
    /** The resolved configuration (no store, no secrets). */
    settings: settingsOf(ctx),
    ...bounded(
      {
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
        maintenance: maintenance(ctx),
      },
      ctx.config.limits,
    ),
  })
  contexts.set(engine, ctx)
  return engine
}

/** Adds `raw`: the same operations, typed to take request bodies as `unknown`. */
function withRaw<E extends { settings: EngineSettings }>(engine: E): E & { raw: RawOperations<Omit<E, 'settings'>> } {
  const { settings: _, ...operations } = engine
  return { ...engine, raw: operations as RawOperations<Omit<E, 'settings'>> }
}

export type Engine = ReturnType<typeof createEngine>
