import { describe, expect, it } from 'vitest'
import { createEngine, engineContext } from '../../src/engine'
import { rejection, snapshot, testEngine } from '../support/engine'

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {}
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

describe('input bounds at the engine boundary', () => {
  it('refuses deeply nested metadata on every operation before it runs, the store unchanged', async () => {
    const { engine, store } = testEngine()
    await engine.customers.create({ source_id: 'c1' })
    const before = await snapshot(store)
    const deep = nested(12_000)
    for (const call of [
      () => engine.customers.create({ source_id: 'c2', metadata: deep }),
      () => engine.raw.campaigns.create({ name: 'C', campaign_type: 'DISCOUNT_COUPONS', metadata: deep }),
      () => engine.redemptions.redeemStackable({ redeemables: [{ object: 'voucher', id: 'X' }], metadata: deep }),
      () => engine.orders.create({ amount: 100, metadata: deep }),
    ]) {
      const e = await rejection(call())
      expect(e).toMatchObject({ code: 400, key: 'input_too_large' })
    }
    expect(await snapshot(store)).toBe(before)
  })

  it('refuses NaN and ±Infinity in metadata and rule conditions', async () => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY]) {
      expect(await rejection(engine.customers.create({ source_id: 'c', metadata: { score: bad } }))).toMatchObject({
        key: 'invalid_payload',
        path: 'metadata.score',
      })
      const rule = engine.validationRules.create({
        name: 'r',
        rules: { '1': { name: 'order.amount', conditions: { $more_than: [bad] } }, logic: '1' },
      })
      expect(await rejection(rule)).toMatchObject({ path: 'rules.1.conditions.$more_than[0]' })
    }
    expect(await snapshot(store)).toBe(before)
  })

  it('rejects (never throws synchronously) and refuses a Date, naming the fix', async () => {
    const { engine } = testEngine()
    const pending = engine.raw.campaigns.create({ name: 'C', start_date: new Date() })
    expect(pending).toBeInstanceOf(Promise)
    expect((await rejection(pending)).details).toContain('pass an ISO 8601 string')
  })

  it('quotes only a prefix of a bad value, and lists at most ten problems', async () => {
    const { engine } = testEngine()
    const e = await rejection(engine.raw.campaigns.create({ name: 'C', campaign_type: 'Z'.repeat(60_000) }))
    expect(e.path).toBe('campaign_type')
    expect(e.details.length).toBeLessThan(400)
    expect(e.details).toContain('more characters)')
    const many = await rejection(
      engine.raw.loyalties.createTiers(
        'camp_x',
        Array.from({ length: 500 }, () => ({ name: 1 })),
      ),
    )
    expect(many.details.split('; ')).toHaveLength(11)
    expect(many.details).toMatch(/and \d+ more problems$/)
  })

  it('takes other bounds from the limits option', async () => {
    const engine = createEngine({ limits: { depth: 4, stringLength: 10 } })
    await expect(engine.customers.create({ source_id: 'c', metadata: nested(3) })).rejects.toMatchObject({
      key: 'input_too_large',
    })
    await expect(engine.customers.create({ source_id: 'c', metadata: nested(2) })).resolves.toMatchObject({
      source_id: 'c',
    })
    await expect(engine.customers.get('c'.repeat(11))).rejects.toMatchObject({ key: 'input_too_large' })
    expect(engineContext(engine).config.limits).toMatchObject({ depth: 4, stringLength: 10, arrayLength: 10_000 })
    const refused = (() => {
      try {
        createEngine({ limits: { depth: -1 } })
      } catch (e) {
        return e
      }
    })()
    expect(refused).toMatchObject({
      code: 400,
      path: 'limits.depth',
      details: 'Property .limits.depth must be a positive integer',
    })
  })

  it('accepts a URLSearchParams form body on the token endpoint', async () => {
    const { engine } = testEngine()
    const app = await engine.auth.createApplication({ family: 'server' })
    const creds = { 'X-App-Id': app.app_id, 'X-App-Token': app.secret }
    const form = new URLSearchParams({ grant_type: 'client_credentials', scope: 'api' })
    await expect(engine.auth.issueToken(creds, form)).resolves.toMatchObject({ token_type: 'Bearer' })
  })
})

describe('engine options', () => {
  it.each([
    [{ maxRetries: Number.NaN }, 'maxRetries'],
    [{ maxRetries: -1 }, 'maxRetries'],
    [{ maxRetries: 1.5 }, 'maxRetries'],
    [{ tokenTtlSeconds: Number.POSITIVE_INFINITY }, 'tokenTtlSeconds'],
    [{ tokenTtlSeconds: 0 }, 'tokenTtlSeconds'],
    [{ projectId: 5 }, 'projectId'],
    [{ projectId: '' }, 'projectId'],
  ])('refuses %j, naming %s', (options, path) => {
    expect(() => createEngine(options as never)).toThrow(expect.objectContaining({ code: 400, path }))
  })

  it('keeps 0 retries and other whole numbers', () => {
    expect(engineContext(createEngine({ maxRetries: 0, tokenTtlSeconds: 60 })).config).toMatchObject({
      maxRetries: 0,
      tokenTtlSeconds: 60,
    })
  })
})
