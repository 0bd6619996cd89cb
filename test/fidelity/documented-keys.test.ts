import { describe, expect, it } from 'vitest'
import type { Engine } from '../../src'
import { createFetchHandler } from '../../src/http'
import { program } from '../operations/loyalty/fixtures'
import { rejection, snapshot, testEngine } from '../support/engine'

/*
 * Sources, all in the repository voucherify-openapi at 65c33a7 (docs/behaviour.md#documented-error-keys):
 * - documentation/openapi/async-actions.json, `GET /v1/async-actions` 400 "Invalid Query Parameters":
 *   `invalid_query_params`, "Property .end_date cannot be recognized as a ISO-8601 compliant date";
 *   documentation/openapi/publications.json, `GET /v1/publications/create` 400: `invalid_query_params`,
 *   "Query should have required property 'customer'"; the error guide (api-reference errors.mdx):
 *   `invalid_query_params` "input request query parameters are invalid".
 *   A query string the HTTP handler cannot read is a bad query parameter as well.
 * - documentation/openapi/oauth.json, `POST /v1/oauth/token` 400 "Invalid grant type":
 *   `invalid_grant_type`, "Invalid grant_type".
 * - the error guide (api-reference errors.mdx): `invalid_voucher` "voucher object was specified
 *   incorrectly (e.g., `gift` or `discount` is missing)".
 * - And where a body breaks its schema the documented key stays `invalid_payload`, even for objects
 *   the guide has a key for: documentation/openapi/exports.json `POST /v1/exports` ("Property
 *   .exported_object should be equal to one of the allowed values"), validations.json
 *   `POST /v1/validations` ("Property .redeemables[1] should have required property 'id'"),
 *   management.json stacking rules ("Property .redeemables_limit must be <= 30").
 */

type Call = (engine: Engine, ids: Ids) => Promise<unknown>
interface Ids {
  readonly campaignId: string
  readonly promotionId: string
  readonly code: string
}

/** Every list operation with a query, each given a limit out of range (1–100). */
const QUERIES: [string, Call, string][] = [
  ['customers.listActivity', (e) => e.customers.listActivity('cust-1', { limit: 0 }), 'query.limit'],
  ['promotions.stacks.list', (e) => e.promotions.stacks.list({ limit: 0 }), 'limit'],
  [
    'promotions.stacks.listInCampaign',
    (e, ids) => e.promotions.stacks.listInCampaign(ids.promotionId, { limit: 0 }),
    'limit',
  ],
  ['products.listSkus', (e) => e.products.listSkus('p', { limit: 0 }), 'limit'],
  ['templates.listCampaignTemplates', (e) => e.templates.listCampaignTemplates({ limit: 0 }), 'limit'],
  ['loyalties.list', (e) => e.loyalties.list({ limit: 0 }), 'query.limit'],
  ['loyalties.listEarningRules', (e, ids) => e.loyalties.listEarningRules(ids.campaignId, { limit: 0 }), 'query.limit'],
  ['loyalties.listTiers', (e, ids) => e.loyalties.listTiers(ids.campaignId, { limit: 0 }), 'query.limit'],
  ['referrals.listHolders', (e, ids) => e.referrals.listHolders(ids.code, { limit: 0 }), 'limit'],
]

async function setup() {
  const t = testEngine()
  const club = await program(t.engine)
  await t.engine.customers.create({ source_id: 'cust-1' })
  await t.engine.vouchers.create({
    code: 'TEN',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 1000 },
  })
  const promo = await t.engine.promotions.create({
    name: 'Promo',
    campaign_type: 'PROMOTION',
    promotion: { tiers: [{ name: 'T', action: { discount: { type: 'AMOUNT', amount_off: 1 } } }] },
  })
  return { ...t, ids: { campaignId: club.id, promotionId: promo.id, code: 'TEN' } }
}

describe('documented keys for bad queries, grants and vouchers', () => {
  it.each(QUERIES)('%s: a bad query is 400 invalid_query_params, naming the parameter', async (_name, call, path) => {
    const t = await setup()
    const before = await snapshot(t.store)
    const e = await rejection(call(t.engine, t.ids))
    expect(e).toMatchObject({ code: 400, key: 'invalid_query_params', message: 'Invalid payload', path })
    expect(e.details).toContain('between 1 and 100')
    expect(await snapshot(t.store)).toBe(before)
  })

  it('engine.raw gives the same key: it is the same operations', async () => {
    const t = await setup()
    const e = await rejection(t.engine.raw.loyalties.list({ limit: 'many' }))
    expect(e).toMatchObject({ code: 400, key: 'invalid_query_params', path: 'query.limit' })
  })

  it('an id argument of a list operation stays invalid_payload: it is not a query parameter', async () => {
    const t = await setup()
    const e = await rejection(t.engine.customers.listActivity('', {}))
    expect(e).toMatchObject({ code: 400, key: 'invalid_payload', path: 'customerId' })
  })

  it('a token request with another grant type: invalid_grant_type', async () => {
    const t = testEngine()
    const app = await t.engine.auth.createApplication({ family: 'server' })
    const before = await snapshot(t.store)
    const e = await rejection(
      t.engine.auth.issueToken(
        { 'X-App-Id': app.app_id, 'X-App-Token': app.secret },
        { grant_type: 'password', scope: 'api' },
      ),
    )
    expect(e).toMatchObject({ code: 400, key: 'invalid_grant_type', path: 'grant_type' })
    expect(await snapshot(t.store)).toBe(before)
  })

  it('a voucher without the gift or discount its type needs: invalid_voucher', async () => {
    const t = testEngine()
    const before = await snapshot(t.store)
    const gift = await rejection(t.engine.vouchers.create({ code: 'G1', type: 'GIFT_VOUCHER' }))
    expect(gift).toMatchObject({ code: 400, key: 'invalid_voucher', path: 'gift' })
    expect(gift.details).toBe('Property .gift is required for a GIFT_VOUCHER')
    const discount = await rejection(t.engine.vouchers.create({ code: 'D1', type: 'DISCOUNT_VOUCHER' }))
    expect(discount).toMatchObject({ code: 400, key: 'invalid_voucher', path: 'discount' })
    expect(await snapshot(t.store)).toBe(before)
  })

  it('a body that breaks its schema stays invalid_payload, as the hosted examples show', async () => {
    const t = await setup()
    const before = await snapshot(t.store)
    await expect(t.engine.exports.create({ exported_object: 'nope' } as never)).rejects.toMatchObject({
      code: 400,
      key: 'invalid_payload',
      path: 'exported_object',
    })
    await expect(
      t.engine.validations.validateStackable({ redeemables: [{ object: 'voucher' }] } as never),
    ).rejects.toMatchObject({ code: 400, key: 'invalid_payload', path: 'redeemables[0].id' })
    await expect(
      t.engine.vouchers.create({ code: 'X', type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: -1 } }),
    ).rejects.toMatchObject({ code: 400, key: 'invalid_payload' })
    expect(await snapshot(t.store)).toBe(before)
  })
})

describe('documented keys over HTTP', () => {
  async function http() {
    const t = testEngine({ authentication: 'keys' })
    const app = await t.engine.auth.createApplication({ family: 'server' })
    const keys = { 'X-App-Id': app.app_id, 'X-App-Token': app.secret }
    const handler = createFetchHandler(t.engine)
    const call = (method: string, path: string, body?: unknown) =>
      handler(
        new Request(`http://engine.test${path}`, {
          method,
          headers: { ...keys, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        }),
      )
    return { ...t, call }
  }

  it('GET /v1/templates/campaigns?limit=0: 400 invalid_query_params', async () => {
    const { call } = await http()
    const res = await call('GET', '/v1/templates/campaigns?limit=0')
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ code: 400, key: 'invalid_query_params' })
  })

  it('a malformed query string, on a list or any other route: 400 invalid_query_params', async () => {
    const { call, store } = await http()
    const before = await snapshot(store)
    for (const [method, path] of [
      ['GET', '/v1/loyalties?a[__proto__][x]=1'],
      ['POST', '/v1/vouchers?a[]b=1'],
    ] as const) {
      const res = await call(method, path, method === 'POST' ? { code: 'Q1', type: 'GIFT_VOUCHER' } : undefined)
      expect(res.status, path).toBe(400)
      expect(await res.json(), path).toMatchObject({ code: 400, key: 'invalid_query_params' })
    }
    expect(await snapshot(store)).toBe(before)
  })

  it('POST /v1/oauth/token with grant_type=password: 400 invalid_grant_type', async () => {
    const { call } = await http()
    const res = await call('POST', '/v1/oauth/token', { grant_type: 'password', scope: 'api' })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ code: 400, key: 'invalid_grant_type' })
  })

  it('POST /v1/vouchers of a GIFT_VOUCHER without gift: 400 invalid_voucher', async () => {
    const { call } = await http()
    const res = await call('POST', '/v1/vouchers', { code: 'G1', type: 'GIFT_VOUCHER' })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ code: 400, key: 'invalid_voucher' })
  })

  it('POST /v1/exports with an unknown exported_object: 400 invalid_payload', async () => {
    const { call } = await http()
    const res = await call('POST', '/v1/exports', { exported_object: 'nope' })
    expect(res.status).toBe(400)
    expect(await res.json()).toMatchObject({ code: 400, key: 'invalid_payload' })
  })
})
