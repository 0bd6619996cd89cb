import { beforeAll, describe, expect, it } from 'vitest'
import type { Engine } from '../../src/engine'
import { EngineError } from '../../src/errors'
import { ROUTES } from '../../src/http/routes'
import { argumentsOf, SIGNATURES } from '../../src/schema/arguments'
import { testEngine } from '../support/engine'
import { type Fixture, fixture, OPERATIONS, operationOf, operationPaths } from '../support/fuzz'

/**
 * The checks at the boundary, on every operation: ids of the wrong type, arrays for bodies, unknown
 * per-call options and extra arguments each give an EngineError naming the argument and the field,
 * and change nothing. The fuzz properties (fuzz.prop.test.ts) try the same with random junk.
 */

function signatureOf(path: string, args: readonly unknown[]): readonly string[] {
  const signature = argumentsOf(path, args)
  if (signature === undefined) throw new Error(`${path} has no signature`)
  return signature
}

/** The change feed's position: a refused call must leave it there (one cheap read on PostgreSQL too). */
async function lastCommit(f: Fixture): Promise<number> {
  let after = 0
  for (;;) {
    const page = await f.store.changes({ after, limit: 1000 })
    after = page.next_after
    if (!page.has_more) return after
  }
}

async function refusal(f: Fixture, path: string, args: unknown[]): Promise<EngineError> {
  const before = await lastCommit(f)
  const call = operationOf(f.engine, path)
  const error = await call(...args).then(
    () => new Error(`${path} accepted ${JSON.stringify(args)}`),
    (e: unknown) => e,
  )
  if (!(error instanceof EngineError)) throw error
  expect((await f.store.changes({ after: before })).data).toEqual([])
  return error
}

/*
 * At compile time (npm run typecheck): where each operation's ids stand, from its parameter types (a
 * string, or a string or null, before the options), equals what SIGNATURES declares. A mismatch
 * makes `declaredAsTyped` fail to compile, naming the operation.
 */
type Operations = Omit<Engine, 'settings' | 'raw'>
type PathsOf<T, P extends string = ''> = {
  [K in keyof T & string]: T[K] extends (...args: never[]) => unknown ? `${P}${K}` : PathsOf<T[K], `${P}${K}.`>
}[keyof T & string]
type At<T, P extends string> = P extends `${infer H}.${infer R}`
  ? H extends keyof T
    ? At<T[H], R>
    : never
  : P extends keyof T
    ? T[P]
    : never
type Kinds<A extends readonly unknown[]> = { [I in keyof A]: [A[I]] extends [string | null] ? 'id' : 'other' }
type Typed<F> = F extends (...args: infer A) => unknown
  ? Required<A> extends [...infer Before, unknown]
    ? Kinds<Before>
    : never
  : never
type Declared<S> = { -readonly [I in keyof S]: S[I] extends `id${string}` ? 'id' : 'other' }
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
type Mismatched = {
  [P in PathsOf<Operations>]: P extends keyof typeof SIGNATURES
    ? (typeof SIGNATURES)[P] extends readonly unknown[]
      ? Same<Typed<At<Operations, P>>, Declared<(typeof SIGNATURES)[P]>> extends true
        ? never
        : P
      : never
    : P
}[PathsOf<Operations>]
const declaredAsTyped: [Mismatched] extends [never] ? true : { mismatched: Mismatched } = true

/** A stand-in fixture, to read the shape of each sample's arguments before the real one exists. */
const SHAPE = { ids: new Proxy({}, { get: () => 'x' }), creds: {}, token: 'x' } as unknown as Fixture

/** Each id argument of each operation; an overload that the wrong id would change is left out. */
const IDS = Object.entries(OPERATIONS).flatMap(([path, sample]) => {
  const args = sample(SHAPE, 0)
  return signatureOf(path, args).flatMap((argument, i) => {
    const changed = signatureOf(path, Object.assign([...args], { [i]: 42 }))
    if (!argument.startsWith('id') || changed[i] !== argument) return []
    return [{ path, i, name: argument.slice(argument.indexOf(':') + 1) }]
  })
})

const BODIES = Object.entries(OPERATIONS).flatMap(([path, sample]) => {
  const args = sample(SHAPE, 0)
  return signatureOf(path, args).flatMap((argument, i) =>
    argument === 'body' && !Array.isArray(args[i]) ? [{ path, i }] : [],
  )
})

/** A value of the kind each source of an HTTP route gives. */
const FROM_ROUTE = (source: string): unknown =>
  source.startsWith('path:') || source === 'project' ? 'x' : source === 'null' ? null : {}

describe('the arguments of every operation', () => {
  let f: Fixture
  beforeAll(async () => {
    f = await fixture()
  })

  it('are declared for every operation of createEngine', () => {
    expect(declaredAsTyped).toBe(true)
    const { engine } = testEngine()
    expect(Object.keys(SIGNATURES).sort()).toEqual(operationPaths(engine))
  })

  it('leave room for the options where the HTTP handler passes them', () => {
    for (const route of ROUTES.filter((r) => r.idempotent)) {
      const path = route.operation.replace(/^client\./, '')
      expect([path, signatureOf(path, route.args.map(FROM_ROUTE)).length]).toEqual([path, route.args.length])
    }
  })

  it.each(IDS)('$path refuses a number, an object or an array as $name', async ({ path, i, name }) => {
    for (const wrong of [42, { id: 'x' }, ['x']]) {
      const args = (OPERATIONS[path] as (typeof OPERATIONS)[string])(f, 0)
      args[i] = wrong
      const error = await refusal(f, path, args)
      expect(error).toMatchObject({ code: 400, key: 'invalid_payload', path: name })
      expect(error.details).toContain(`Argument ${name} of ${path} must be a string`)
    }
  })

  it('names the ids the issue found first: a qualification campaign, a downloaded file with a link', async () => {
    const club = await refusal(f, 'loyalties.qualifications', [7, { customer: { source_id: 'alice' } }])
    expect(club).toMatchObject({ key: 'invalid_payload', path: 'campaignId' })
    const file = await refusal(f, 'files.download', [{}, { expires: '1', signature: 'x' }])
    expect(file).toMatchObject({ key: 'invalid_payload', path: 'fileId' })
  })

  it('refuses an array or a string for a file link or the credential headers', async () => {
    for (const wrong of [[], 'expires=1&signature=x']) {
      const link = await refusal(f, 'files.download', ['file_x', wrong])
      expect(link).toMatchObject({ key: 'invalid_payload', path: 'link' })
      const headers = await refusal(f, 'auth.issueToken', [wrong, { grant_type: 'client_credentials' }])
      expect(headers).toMatchObject({ key: 'invalid_payload', path: 'headers' })
    }
  })

  it('takes null for the campaign where the member id alone finds the card', async () => {
    const member = await f.engine.loyalties.getMember(null, f.ids.card)
    expect(member.id).toBe(f.ids.card)
  })

  it.each(BODIES)('$path refuses an array for its body instead of reading it as {}', async ({ path, i }) => {
    const args = (OPERATIONS[path] as (typeof OPERATIONS)[string])(f, 0)
    args[i] = []
    const error = await refusal(f, path, args)
    expect(error.code).toBe(400)
  })

  it('says where an array stood for an object, nested too', async () => {
    const top = await refusal(f, 'maintenance.purgeExpired', [[]])
    expect(top).toMatchObject({ key: 'invalid_payload', path: 'body' })
    expect(top.details).toContain('must be Object but received Array')
    const nested = await refusal(f, 'validations.validateStackable', [
      { redeemables: [{ object: 'voucher', id: 'TEN' }], order: [] },
    ])
    expect(nested).toMatchObject({ key: 'invalid_payload', path: 'order' })
  })

  it.each(Object.keys(OPERATIONS))('%s refuses a misspelt or unknown per-call option', async (path) => {
    const sample = OPERATIONS[path] as (typeof OPERATIONS)[string]
    const at = signatureOf(path, sample(f, 0)).length
    for (const [options, field] of [
      [{ idempotency_key: 'k1' }, 'options.idempotency_key'],
      [{ idempotencyKey: 'k1', retries: 2 }, 'options.retries'],
      [['k1'], 'options'],
      ['k1', 'options'],
    ] as const) {
      const args = sample(f, 0)
      args[at] = options
      const error = await refusal(f, path, args)
      expect(error).toMatchObject({ code: 400, key: 'invalid_call_options', path: field })
      expect(error.details).toContain(field)
    }
  })

  it('says which option was meant', async () => {
    const error = await refusal(f, 'orders.create', [
      { source_id: 'o-retry', amount: 100 },
      { idempotency_key: 'retry-1' },
    ])
    expect(error.details).toBe('options.idempotency_key is not a per-call option of orders.create; use idempotencyKey')
  })

  it('checks the family option of qualifications', async () => {
    const body = { customer: { source_id: 'alice' }, order: { amount: 100 } }
    const error = await refusal(f, 'qualifications.checkEligibility', [body, { side: 'browser' }])
    expect(error).toMatchObject({ key: 'invalid_call_options', path: 'options.side' })
    await expect(f.engine.qualifications.checkEligibility(body, { side: 'client' })).resolves.toBeDefined()
  })

  it('refuses arguments after the options', async () => {
    const error = await refusal(f, 'customers.get', ['alice', {}, { idempotencyKey: 'k' }])
    expect(error).toMatchObject({ key: 'invalid_call_options', path: 'arguments[2]' })
    expect(error.details).toBe('customers.get takes idOrSourceId, options; it got 3 arguments')
    // Trailing undefined arguments are absent ones.
    await expect(operationOf(f.engine, 'customers.get')('alice', undefined, undefined)).resolves.toBeDefined()
  })
})
