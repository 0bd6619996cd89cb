import { describe, expect, it } from 'vitest'
import { createEngine } from '../../../src/engine'
import { rejection, snapshot, testEngine } from '../../support/engine'

describe('authentication by keys alone (engine option authentication: keys)', () => {
  it('accepts the keys without a token, with the family-wide scope or the application’s own', async () => {
    const { engine } = testEngine({ authentication: 'keys' })
    const full = await engine.auth.createApplication({ family: 'server' })
    const narrow = await engine.auth.createApplication({ family: 'server', scopes: ['vouchers'] })
    const headers = (a: { app_id: string; secret: string }) => ({ 'x-app-id': a.app_id, 'x-app-token': a.secret })
    expect(
      await engine.auth.authenticate({ family: 'server', headers: headers(full), operation: 'orders.create' }),
    ).toEqual({ app_id: full.app_id, family: 'server', scopes: ['api'] })
    expect(
      await engine.auth.authenticate({ family: 'server', headers: headers(narrow), operation: 'vouchers.get' }),
    ).toMatchObject({ scopes: ['vouchers'] })
    expect(
      await rejection(
        engine.auth.authenticate({ family: 'server', headers: headers(narrow), operation: 'orders.create' }),
      ),
    ).toMatchObject({ code: 403, key: 'insufficient_scope' })
    const wrong = { ...headers(full), 'x-app-token': 'x'.repeat(43) }
    expect(
      await rejection(engine.auth.authenticate({ family: 'server', headers: wrong, operation: 'vouchers.get' })),
    ).toMatchObject({ code: 401, key: 'unauthorized' })
  })

  it('checks client origins and keeps families apart', async () => {
    const { engine } = testEngine({ authentication: 'keys' })
    const client = await engine.auth.createApplication({ family: 'client', allowed_origins: ['shop.example'] })
    const headers = { 'x-client-application-id': client.app_id, 'x-client-token': client.secret }
    const operation = 'client.validations.validateStackable'
    expect(
      await engine.auth.authenticate({
        family: 'client',
        headers: { ...headers, origin: 'https://shop.example' },
        operation,
      }),
    ).toMatchObject({ scopes: ['client_api'] })
    expect(
      await rejection(
        engine.auth.authenticate({
          family: 'client',
          headers: { ...headers, origin: 'https://evil.example' },
          operation,
        }),
      ),
    ).toMatchObject({ code: 403, key: 'origin_not_allowed' })
    expect(await rejection(engine.auth.authenticate({ family: 'client', headers, operation }))).toMatchObject({
      code: 401,
      key: 'missing_header',
    })
  })

  it('the default mode still needs a bearer token; an unknown mode is refused', async () => {
    const { engine } = testEngine()
    const app = await engine.auth.createApplication({ family: 'server' })
    const headers = { 'x-app-id': app.app_id, 'x-app-token': app.secret }
    expect(
      await rejection(engine.auth.authenticate({ family: 'server', headers, operation: 'vouchers.get' })),
    ).toMatchObject({ code: 401, key: 'missing_header', path: 'Authorization' })
    expect(() => createEngine({ authentication: 'none' as never })).toThrow(
      expect.objectContaining({ code: 400, path: 'authentication' }),
    )
    expect(() => createEngine({ idempotencyTtlSeconds: 0 })).toThrow(
      expect.objectContaining({ code: 400, path: 'idempotencyTtlSeconds' }),
    )
  })

  it('creates applications with keys a host already has; refuses a taken id and mismatched scopes', async () => {
    const { engine, store } = testEngine({ authentication: 'keys' })
    const made = await engine.auth.createApplication({
      family: 'server',
      app_id: 'app_checkout',
      secret: 's'.repeat(32),
    })
    expect(made).toEqual({ app_id: 'app_checkout', secret: 's'.repeat(32) })
    const before = await snapshot(store)
    expect(
      await rejection(
        engine.auth.createApplication({ family: 'server', app_id: 'app_checkout', secret: 't'.repeat(32) }),
      ),
    ).toMatchObject({ code: 409, key: 'duplicate_found' })
    expect(await rejection(engine.auth.createApplication({ family: 'server', secret: 'short' }))).toMatchObject({
      code: 400,
      path: 'secret',
    })
    expect(
      await rejection(
        engine.auth.createApplication({ family: 'client', allowed_origins: ['*'], scopes: ['vouchers'] }),
      ),
    ).toMatchObject({ code: 400, path: 'scopes' })
    expect(await snapshot(store)).toBe(before)
  })
})
