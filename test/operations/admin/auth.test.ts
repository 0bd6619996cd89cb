import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../../support/engine'

async function setup() {
  const t = testEngine({ tokenTtlSeconds: 600 })
  const server = await t.engine.auth.createApplication({ family: 'server', name: 'backend' })
  const creds = { 'X-App-Id': server.app_id, 'X-App-Token': server.secret }
  return { ...t, server, creds }
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection')
    },
    (e: unknown) => e,
  )
}

describe('auth.rotateSecret', () => {
  it('gives an application a new secret: the old one stops working, an unknown app id is a 404', async () => {
    const { engine, store, server, creds } = await setup()
    const token = (headers: Record<string, string>) =>
      engine.auth.authenticate({ family: 'token', headers, operation: 'auth.issueToken' })
    const rotated = await engine.auth.rotateSecret(server.app_id)
    expect(rotated.app_id).toBe(server.app_id)
    expect(rotated.secret).not.toBe(server.secret)
    await expect(token(creds)).rejects.toMatchObject({ code: 401 })
    await expect(token({ ...creds, 'X-App-Token': rotated.secret })).resolves.toMatchObject({ app_id: server.app_id })
    const chosen = 'c'.repeat(30)
    await engine.auth.rotateSecret(server.app_id, { secret: chosen })
    await expect(token({ ...creds, 'X-App-Token': chosen })).resolves.toMatchObject({ app_id: server.app_id })
    expect(JSON.stringify(await snapshot(store))).not.toContain(chosen)
    const before = await snapshot(store)
    await expect(engine.auth.rotateSecret('app_nobody')).rejects.toMatchObject({ code: 404, key: 'not_found' })
    await expect(engine.auth.rotateSecret(server.app_id, { secret: 'short' })).rejects.toMatchObject({
      code: 400,
      path: 'secret',
    })
    expect(await snapshot(store)).toEqual(before)
  })
})

describe('auth.createApplication', () => {
  it('returns the secret once and stores only its hash', async () => {
    const { engine, store, server } = await setup()
    expect(server.app_id).toMatch(/^app_[0-9A-Za-z]{24}$/)
    expect(server.secret).toMatch(/^[A-Za-z0-9_-]{43}$/)
    const stored = (await store.credentials.get(server.app_id))?.value
    expect(stored).toMatchObject({ family: 'server', name: 'backend', created_at: '2026-01-15T10:00:00.000Z' })
    expect(stored?.secret_hash).toMatch(/^[0-9a-f]{64}$/)
    expect(JSON.stringify(await snapshot(store))).not.toContain(server.secret)
    // A second application gets another secret.
    expect((await engine.auth.createApplication({ family: 'server' })).secret).not.toBe(server.secret)
  })

  it('requires allowed origins for a client application and writes nothing otherwise', async () => {
    const { engine, store } = await setup()
    const before = await snapshot(store)
    await expect(engine.auth.createApplication({ family: 'client' })).rejects.toMatchObject({
      code: 400,
      path: 'allowed_origins',
    })
    await expect(engine.raw.auth.createApplication({ family: 'root' })).rejects.toMatchObject({
      code: 400,
      path: 'family',
    })
    expect(await snapshot(store)).toBe(before)
  })
})

describe('auth.issueToken', () => {
  it('issues a Bearer token with every field of the service interface, storing only its hash', async () => {
    const { engine, store, server, creds } = await setup()
    const token = await engine.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'vouchers customers' })
    expect(token).toEqual({
      access_token: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      client_id: server.app_id,
      expires_at: 1768471800, // 2026-01-15T10:00:00Z + 600 s, in Unix seconds
      expires_in: 600,
      scope: 'vouchers customers',
      token_type: 'Bearer',
    })
    const tokens = (await store.access_tokens.list()).data.map((s) => s.value)
    expect(tokens).toHaveLength(1)
    expect(tokens[0]).toMatchObject({
      client_id: server.app_id,
      scope: ['vouchers', 'customers'],
      expires_at: '2026-01-15T10:10:00.000Z',
      revoked_at: null,
    })
    expect(JSON.stringify(tokens)).not.toContain(token.access_token)
  })

  it('accepts lower-case header names and a URLSearchParams body', async () => {
    const { engine, server } = await setup()
    const token = await engine.auth.issueToken(
      { 'x-app-id': server.app_id, 'x-app-token': server.secret },
      new URLSearchParams('grant_type=client_credentials&scope=api'),
    )
    expect(token.scope).toBe('api')
  })

  it('rejects a comma, an unknown scope, another grant type, non-string fields — writing nothing', async () => {
    const { engine, store, creds } = await setup()
    const before = await snapshot(store)
    await expect(
      engine.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'vouchers,customers' }),
    ).rejects.toMatchObject({
      code: 400,
      key: 'invalid_scope',
      path: 'scope',
      details: 'Property .scope must separate scope values with spaces; commas are not allowed',
    })
    await expect(
      engine.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'vouchers wallets' }),
    ).rejects.toMatchObject({
      code: 400,
      key: 'invalid_scope',
      details: 'Property .scope has an unknown scope value "wallets"',
    })
    await expect(engine.auth.issueToken(creds, { grant_type: 'password', scope: 'api' })).rejects.toMatchObject({
      code: 400,
      key: 'invalid_grant_type',
      path: 'grant_type',
    })
    await expect(
      engine.raw.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 7 }),
    ).rejects.toMatchObject({
      code: 400,
      path: 'scope',
    })
    await expect(engine.raw.auth.issueToken(creds, { grant_type: 'client_credentials' })).rejects.toMatchObject({
      code: 400,
      path: 'scope',
    })
    await expect(
      engine.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'client_api' }),
    ).rejects.toMatchObject({ code: 400, key: 'invalid_scope' })
    expect(await snapshot(store)).toBe(before)
  })

  it('rejects a missing header and a wrong secret with 401', async () => {
    const { engine, store, server } = await setup()
    const before = await snapshot(store)
    const body = { grant_type: 'client_credentials', scope: 'api' }
    await expect(engine.auth.issueToken({ 'X-App-Id': server.app_id }, body)).rejects.toMatchObject({
      code: 401,
      key: 'missing_header',
      path: 'X-App-Token',
    })
    await expect(engine.auth.issueToken({}, body)).rejects.toMatchObject({ code: 401, path: 'X-App-Id' })
    // No headers object at all (a host that forgot to pass them) is the same 401, not a TypeError.
    for (const none of [null, undefined]) {
      await expect(engine.auth.issueToken(none as never, body)).rejects.toMatchObject({
        code: 401,
        key: 'missing_header',
      })
      await expect(engine.auth.revokeToken(none as never, { access_token: 'x' })).rejects.toMatchObject({ code: 401 })
    }
    await expect(
      engine.auth.issueToken({ 'X-App-Id': server.app_id, 'X-App-Token': `${server.secret}x` }, body),
    ).rejects.toMatchObject({ code: 401, key: 'unauthorized' })
    await expect(
      engine.auth.issueToken({ 'X-App-Id': 'app_unknown', 'X-App-Token': server.secret }, body),
    ).rejects.toMatchObject({ code: 401, key: 'unauthorized' })
    expect(await snapshot(store)).toBe(before)
  })
})

describe('auth.authenticate', () => {
  it('lets a server request through with the operation scope or api', async () => {
    const { engine, server, creds } = await setup()
    const { access_token } = await engine.auth.issueToken(creds, {
      grant_type: 'client_credentials',
      scope: 'vouchers',
    })
    const headers = { ...creds, Authorization: `Bearer ${access_token}` }
    expect(await engine.auth.authenticate({ family: 'server', headers, operation: 'vouchers.get' })).toEqual({
      app_id: server.app_id,
      family: 'server',
      scopes: ['vouchers'],
    })
    const api = await engine.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'api' })
    const principal = await engine.auth.authenticate({
      family: 'server',
      headers: { ...creds, authorization: `bearer ${api.access_token}` },
      operation: 'loyalties.create',
    })
    expect(principal.scopes).toEqual(['api'])
  })

  it('refuses a token without the scope with 403 naming the scope', async () => {
    const { engine, creds } = await setup()
    const { access_token } = await engine.auth.issueToken(creds, {
      grant_type: 'client_credentials',
      scope: 'vouchers',
    })
    const error = await rejection(
      engine.auth.authenticate({
        family: 'server',
        headers: { ...creds, Authorization: `Bearer ${access_token}` },
        operation: 'customers.get',
      }),
    )
    expect(error).toMatchObject({
      code: 403,
      key: 'insufficient_scope',
      details: 'customers.get needs the customers scope (or api); the token has vouchers',
    })
  })

  it('refuses an expired token by the engine clock', async () => {
    const { engine, clock, creds } = await setup()
    const { access_token } = await engine.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'api' })
    const request = {
      family: 'server' as const,
      headers: { ...creds, Authorization: `Bearer ${access_token}` },
      operation: 'vouchers.get',
    }
    clock.advance(599_999)
    await expect(engine.auth.authenticate(request)).resolves.toMatchObject({ family: 'server' })
    clock.advance(1)
    await expect(engine.auth.authenticate(request)).rejects.toMatchObject({ code: 401, key: 'token_expired' })
  })

  it('refuses a revoked token; revoking an unknown token is a no-op', async () => {
    const { engine, store, creds } = await setup()
    const { access_token } = await engine.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'api' })
    const before = await snapshot(store)
    await engine.auth.revokeToken(creds, { access_token: 'not-a-token' })
    expect(await snapshot(store)).toBe(before)
    await engine.auth.revokeToken(creds, { access_token })
    await expect(
      engine.auth.authenticate({
        family: 'server',
        headers: { ...creds, Authorization: `Bearer ${access_token}` },
        operation: 'vouchers.get',
      }),
    ).rejects.toMatchObject({ code: 401, key: 'token_revoked' })
  })

  it('does not let one application revoke or use another application token', async () => {
    const { engine, creds } = await setup()
    const other = await engine.auth.createApplication({ family: 'server' })
    const otherCreds = { 'X-App-Id': other.app_id, 'X-App-Token': other.secret }
    const { access_token } = await engine.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'api' })
    await engine.auth.revokeToken(otherCreds, { access_token })
    const headers = { ...otherCreds, Authorization: `Bearer ${access_token}` }
    await expect(
      engine.auth.authenticate({ family: 'server', headers, operation: 'vouchers.get' }),
    ).rejects.toMatchObject({ code: 401, key: 'invalid_token' })
    await expect(
      engine.auth.authenticate({
        family: 'server',
        headers: { ...creds, Authorization: `Bearer ${access_token}` },
        operation: 'vouchers.get',
      }),
    ).resolves.toMatchObject({ scopes: ['api'] })
  })

  it('names each missing server header and refuses a malformed Authorization', async () => {
    const { engine, creds, server } = await setup()
    const op = 'vouchers.get'
    await expect(engine.auth.authenticate({ family: 'server', headers: {}, operation: op })).rejects.toMatchObject({
      code: 401,
      key: 'missing_header',
      path: 'X-App-Id',
    })
    await expect(
      engine.auth.authenticate({ family: 'server', headers: { 'X-App-Id': server.app_id }, operation: op }),
    ).rejects.toMatchObject({ code: 401, key: 'missing_header', path: 'X-App-Token' })
    await expect(engine.auth.authenticate({ family: 'server', headers: creds, operation: op })).rejects.toMatchObject({
      code: 401,
      key: 'missing_header',
      path: 'Authorization',
    })
    await expect(
      engine.auth.authenticate({ family: 'server', headers: { ...creds, Authorization: 'Basic abc' }, operation: op }),
    ).rejects.toMatchObject({ code: 401, key: 'invalid_authorization_header' })
    await expect(
      engine.auth.authenticate({
        family: 'server',
        headers: { ...creds, Authorization: 'Bearer nope' },
        operation: op,
      }),
    ).rejects.toMatchObject({ code: 401, key: 'invalid_token' })
  })

  it('checks client credentials, token, scope and origin', async () => {
    const { engine } = await setup()
    const app = await engine.auth.createApplication({ family: 'client', allowed_origins: ['https://shop.example.com'] })
    const creds = { 'X-Client-Application-Id': app.app_id, 'X-Client-Token': app.secret }
    const token = await engine.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'client_validations' })
    expect(token.client_id).toBe(app.app_id)
    const headers = { ...creds, Authorization: `Bearer ${token.access_token}`, Origin: 'https://shop.example.com' }
    const operation = 'client.validations.validateStackable'
    expect(await engine.auth.authenticate({ family: 'client', headers, operation })).toEqual({
      app_id: app.app_id,
      family: 'client',
      scopes: ['client_validations'],
    })
    await expect(
      engine.auth.authenticate({
        family: 'client',
        headers: { ...headers, Origin: 'https://evil.example.com' },
        operation,
      }),
    ).rejects.toMatchObject({ code: 403, key: 'origin_not_allowed' })
    await expect(
      engine.auth.authenticate({ family: 'client', headers, operation: 'client.redemptions.redeemStackable' }),
    ).rejects.toMatchObject({ code: 403, key: 'insufficient_scope' })
    const { Origin: _o, ...noOrigin } = headers
    await expect(engine.auth.authenticate({ family: 'client', headers: noOrigin, operation })).rejects.toMatchObject({
      code: 401,
      key: 'missing_header',
      path: 'origin',
    })
    await expect(
      engine.auth.authenticate({ family: 'client', headers: { 'X-Client-Application-Id': app.app_id }, operation }),
    ).rejects.toMatchObject({ code: 401, key: 'missing_header', path: 'X-Client-Token' })
    await expect(
      engine.auth.authenticate({ family: 'client', headers: { ...headers, 'X-Client-Token': 'wrong' }, operation }),
    ).rejects.toMatchObject({ code: 401, key: 'unauthorized' })
    const all = await engine.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'client_api' })
    await expect(
      engine.auth.authenticate({
        family: 'client',
        headers: { ...headers, Authorization: `Bearer ${all.access_token}` },
        operation: 'client.events.create',
      }),
    ).resolves.toMatchObject({ scopes: ['client_api'] })
  })

  it('checks management and token-endpoint credentials, which need no token', async () => {
    const { engine, creds, server } = await setup()
    const key = await engine.auth.createApplication({ family: 'management' })
    const mgmt = { 'X-Management-Id': key.app_id, 'X-Management-Token': key.secret }
    expect(
      await engine.auth.authenticate({ family: 'management', headers: mgmt, operation: 'stackingRules.list' }),
    ).toEqual({
      app_id: key.app_id,
      family: 'management',
      scopes: [],
    })
    await expect(
      engine.auth.authenticate({
        family: 'management',
        headers: { 'X-Management-Id': key.app_id },
        operation: 'stackingRules.list',
      }),
    ).rejects.toMatchObject({ code: 401, key: 'missing_header', path: 'X-Management-Token' })
    // Server credentials are not a management key.
    await expect(
      engine.auth.authenticate({
        family: 'management',
        headers: { 'X-Management-Id': server.app_id, 'X-Management-Token': server.secret },
        operation: 'stackingRules.list',
      }),
    ).rejects.toMatchObject({ code: 401, key: 'unauthorized' })
    expect(await engine.auth.authenticate({ family: 'token', headers: creds, operation: 'auth.issueToken' })).toEqual({
      app_id: server.app_id,
      family: 'token',
      scopes: [],
    })
    await expect(
      engine.auth.authenticate({ family: 'token', headers: { 'X-App-Token': 'x' }, operation: 'auth.revokeToken' }),
    ).rejects.toMatchObject({ code: 401, key: 'missing_header', path: 'X-App-Id' })
  })

  it('rejects an operation outside the table or of another family', async () => {
    const { engine, creds } = await setup()
    await expect(
      engine.auth.authenticate({ family: 'server', headers: creds, operation: 'nope.nope' }),
    ).rejects.toMatchObject({
      code: 400,
      key: 'unknown_operation',
      path: 'operation',
    })
    await expect(
      engine.auth.authenticate({ family: 'server', headers: creds, operation: 'client.events.create' }),
    ).rejects.toMatchObject({ code: 400, key: 'wrong_family', path: 'family' })
  })
})
