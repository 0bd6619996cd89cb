import { EngineError } from '../errors'
import { ROUNDING_MODES } from '../money'
import { AUTHENTICATION_MODES } from '../operations/kernel/engine-config'
import { COLLECTIONS } from '../storage/collections'
import type { Clock, IdGenerator, RandomSource, Store } from '../storage/ports'
import { nonEmptyString, nonNegativeInt, positiveInt } from './common'
import { issuePath, withoutUndefined } from './parse'
import * as v from './valibot'

const isObject = (x: unknown): x is Record<string, unknown> => typeof x === 'object' && x !== null

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: zone })
    return true
  } catch {
    return false
  }
}

const clock = v.custom<Clock>(
  (c) => isObject(c) && typeof c.now === 'function',
  (issue) =>
    typeof issue.input === 'function'
      ? 'is a function, but a clock is an object with a now() method: pass { now: () => new Date() }'
      : 'must be an object with a now(): Date method, e.g. { now: () => new Date() }',
)

const REPOSITORY_METHODS = ['get', 'getMany', 'findBy', 'findMany', 'list'] as const

/** What a store lacks: its commit or change feed, or a repository or one of its methods (none: ''). */
function storeGap(s: Record<string, unknown>): string {
  for (const method of ['commit', 'changes']) if (typeof s[method] !== 'function') return `${method}()`
  for (const collection of COLLECTIONS) {
    const repository = s[collection]
    if (!isObject(repository)) return `${collection} repository`
    for (const method of REPOSITORY_METHODS)
      if (typeof repository[method] !== 'function') return `${collection}.${method}()`
  }
  return ''
}

const store = v.pipe(
  v.custom<Store>(
    isObject,
    'must be a store (an object with commit(changeset) and a repository per collection), e.g. createMemoryStore()',
  ),
  v.check(
    (s) => storeGap(s as unknown as Record<string, unknown>) === '',
    (issue) =>
      `has no ${storeGap(issue.input as unknown as Record<string, unknown>)}: a store has commit(), changes() and, for every collection (docs/storage.md), a repository with ${REPOSITORY_METHODS.join(', ')}; e.g. createMemoryStore()`,
  ),
)

const ids = v.custom<IdGenerator>((f) => typeof f === 'function', 'must be a function (prefix) => id')

const random = v.custom<RandomSource>(
  (f) => typeof f === 'function',
  'must be a function returning a number in [0, 1), e.g. seededRandom(42)',
)

const engineOptions = v.strictObject({
  store: v.optional(store),
  clock: v.optional(clock),
  ids: v.optional(ids),
  random: v.optional(random),
  timezone: v.optional(
    v.pipe(
      v.string('must be a string'),
      v.check(isTimeZone, (issue) => `must be an IANA time zone such as Europe/Paris, not ${issue.input}`),
    ),
  ),
  rounding: v.optional(v.picklist(ROUNDING_MODES, `must be one of ${ROUNDING_MODES.join(', ')}`)),
  // Its fields are checked where the rules are read (the stacking-rules operations), also at once.
  stackingRules: v.optional(v.custom<object>(isObject, 'must be an object of stacking rules')),
  maxRetries: v.optional(nonNegativeInt),
  tokenTtlSeconds: v.optional(positiveInt),
  projectId: v.optional(nonEmptyString),
  // Its names and values are checked where they are resolved (`resolveLimits`), also at once.
  limits: v.optional(v.unknown()),
  authentication: v.optional(v.picklist(AUTHENTICATION_MODES, `must be one of ${AUTHENTICATION_MODES.join(', ')}`)),
  idempotencyTtlSeconds: v.optional(positiveInt),
  filesBaseUrl: v.optional(nonEmptyString),
  filesSecret: v.optional(v.pipe(v.string('must be a string'), v.minLength(32, 'must be at least 32 characters'))),
  fileLinkTtlSeconds: v.optional(positiveInt),
  fileRetentionSeconds: v.optional(positiveInt),
  loadHints: v.optional(nonNegativeInt),
})

const KNOWN = Object.keys(engineOptions.entries)

/**
 * Checks `createEngine`'s options at once, so a wrong one fails where it is written, not inside the
 * first operation: a 400 `EngineError` (key `invalid_engine_options`) naming the option. An option
 * set to `undefined` is absent; an unknown option name (a typo) is refused.
 */
export function checkEngineOptions(options: unknown): void {
  if (options === undefined) return
  const result = v.safeParse(engineOptions, withoutUndefined(options), { abortPipeEarly: true })
  if (result.success) return
  const problems = result.issues.map((issue) => {
    const path = issuePath(issue, 'options')
    if (issue.expected === 'never') return { path, text: `${path} is not an engine option; use ${KNOWN.join(', ')}` }
    if (issue.kind === 'schema' && issue.type === 'strict_object') return { path, text: `${path} must be an object` }
    const text =
      issue.kind === 'schema' && issue.type !== 'custom' && issue.type !== 'picklist'
        ? `must be ${issue.expected ?? 'valid'} but received ${issue.received}`
        : issue.message
    return { path, text: `${path} ${text}` }
  })
  const first = problems[0] as { path: string; text: string }
  throw new EngineError({
    code: 400,
    key: 'invalid_engine_options',
    message: `Invalid engine option: ${first.text}`,
    details: problems.map((p) => p.text).join('; '),
    path: first.path.replace(/^options\.?/, '') || 'options',
  })
}
