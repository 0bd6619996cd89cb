import { describe, expect, it } from 'vitest'
import { createEngine } from '../../../src/engine'
import { EngineError } from '../../../src/errors'
import { seededRandom } from '../../../src/ids'
import { snapshot, testEngine } from '../../support/engine'

async function setup() {
  const t = testEngine()
  const server = await t.engine.auth.createApplication({ family: 'server' })
  return { ...t, server, creds: { 'X-App-Id': server.app_id, 'X-App-Token': server.secret } }
}

const body = { grant_type: 'client_credentials', scope: 'api' }

describe('auth headers of any shape', () => {
  it.each([
    ['null', null],
    ['an empty array', []],
    ['two values', ['a', 'b']],
    ['a number', 42],
    ['an object', { value: 'x' }],
    ['a boolean', true],
    ['an array holding a number', [1]],
  ])('refuse a header value that is %s with a 401, never a TypeError', async (_name, value) => {
    const { engine, store, creds } = await setup()
    const before = await snapshot(store)
    for (const name of ['X-App-Id', 'X-App-Token'] as const) {
      const headers = { ...creds, [name]: value } as never
      const issued = await engine.auth.issueToken(headers, body).catch((e: unknown) => e)
      expect(issued).toBeInstanceOf(EngineError)
      expect(issued).toMatchObject({ code: 401, key: 'invalid_header', path: name })
      const revoked = await engine.auth.revokeToken(headers, { access_token: 'x' }).catch((e: unknown) => e)
      expect(revoked).toMatchObject({ code: 401, key: 'invalid_header' })
    }
    expect(await snapshot(store)).toBe(before)
  })

  it('refuses headers that are not an object, and names the missing one', async () => {
    const { engine } = await setup()
    for (const headers of ['X-App-Id', 42, true]) {
      await expect(engine.auth.issueToken(headers as never, body)).rejects.toMatchObject({ code: 401 })
    }
    await expect(engine.auth.issueToken([] as never, body)).rejects.toMatchObject({
      code: 401,
      key: 'missing_header',
      path: 'X-App-Id',
    })
  })

  it('gives authenticate a 400 naming the header when a value is not a string', async () => {
    const { engine, creds } = await setup()
    await expect(
      engine.auth.authenticate({
        family: 'token',
        headers: { ...creds, 'X-App-Token': null } as never,
        operation: 'oauth.token',
      }),
    ).rejects.toMatchObject({ code: 400, path: 'headers.X-App-Token' })
  })

  it('refuses one header under two spellings, whether the values agree or not', async () => {
    const { engine, store, server, creds } = await setup()
    const before = await snapshot(store)
    for (const other of ['app_other', server.app_id]) {
      await expect(engine.auth.issueToken({ ...creds, 'x-app-id': other }, body)).rejects.toMatchObject({
        code: 401,
        key: 'duplicate_header',
        path: 'X-App-Id',
        details: 'Header X-App-Id is sent as both X-App-Id and x-app-id',
      })
    }
    expect(await snapshot(store)).toBe(before)
    // One spelling, whatever its case, is fine.
    const token = await engine.auth.issueToken({ 'x-APP-id': server.app_id, 'X-App-Token': server.secret }, body)
    expect(token.token_type).toBe('Bearer')
  })
})

describe('allowed_origins', () => {
  it('are validated when a client application is created, naming the entry', async () => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    await expect(
      engine.auth.createApplication({
        family: 'client',
        allowed_origins: ['https://shop.example.com', 'https://shop.example.com/cart'],
      }),
    ).rejects.toMatchObject({ code: 400, key: 'invalid_payload', path: 'allowed_origins[1]' })
    await expect(
      engine.auth.createApplication({ family: 'client', allowed_origins: ['https://shop*.example.com'] }),
    ).rejects.toMatchObject({ code: 400, path: 'allowed_origins[0]' })
    expect(await snapshot(store)).toBe(before)
  })

  it('with a subdomain wildcard let the subdomains in and keep others out', async () => {
    const { engine } = testEngine()
    const app = await engine.auth.createApplication({ family: 'client', allowed_origins: ['https://*.example.com'] })
    const creds = { 'X-Client-Application-Id': app.app_id, 'X-Client-Token': app.secret }
    const token = await engine.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'client_validations' })
    const headers = { ...creds, Authorization: `Bearer ${token.access_token}` }
    const operation = 'client.validations.validateStackable'
    const from = (origin: string) =>
      engine.auth.authenticate({ family: 'client', headers: { ...headers, origin }, operation })
    await expect(from('https://shop.example.com')).resolves.toMatchObject({ app_id: app.app_id })
    await expect(from('https://example.com')).rejects.toMatchObject({ code: 403, key: 'origin_not_allowed' })
    await expect(from('https://shop.example.org')).rejects.toMatchObject({ code: 403, key: 'origin_not_allowed' })
  })
})

describe('secrets and access tokens', () => {
  it('come from the operating system, not from the seeded source codes and ids use', async () => {
    const minted = await Promise.all(
      [1, 2].map(async () => {
        const engine = createEngine({ random: seededRandom(42) })
        const app = await engine.auth.createApplication({ family: 'server' })
        const creds = { 'X-App-Id': app.app_id, 'X-App-Token': app.secret }
        const token = await engine.auth.issueToken(creds, body)
        return { id: app.app_id, secret: app.secret, token: token.access_token }
      }),
    )
    const [a, b] = minted as [(typeof minted)[0], (typeof minted)[0]]
    // Ids still follow the seed (reproducible runs), the secrets and tokens do not.
    expect(a.id).toBe(b.id)
    expect(a.secret).not.toBe(b.secret)
    expect(a.token).not.toBe(b.token)
    expect(a.secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
  })
})
