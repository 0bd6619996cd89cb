import { describe, expect, it } from 'vitest'
import { createFetchHandler } from '../../src/http'
import { testEngine } from '../support/engine'

/** Every endpoint the service interface lists (path parameters filled with sample values). */
const ENDPOINTS = [
  'POST /v1/oauth/token',
  'POST /v1/oauth/token/revoke',
  'POST /v1/loyalties',
  'POST /v1/loyalties/camp_1/members',
  'POST /v1/loyalties/camp_1/members/CARD-1/redemption',
  'POST /v1/loyalties/members/CARD-1/redemption',
  'GET /v1/loyalties/camp_1/earning-rules',
  'POST /v1/loyalties/camp_1/earning-rules',
  'POST /v1/loyalties/camp_1/tiers',
  'POST /v1/rewards',
  'POST /client/v1/validations',
  'GET /v1/promotions/stacks',
  'GET /v1/promotions/camp_1/stacks',
  'POST /v1/promotions/camp_1/stacks',
  'GET /v1/promotions/tiers/promo_1',
  'POST /v1/promotions/tiers/promo_1/enable',
  'GET /v1/customers/cust_1/activity',
  'POST /v1/events',
  'GET /v1/referrals/members/REF-1/holders',
  'GET /v1/referrals/camp_1/members/REF-1/holders',
  'GET /v1/templates/campaigns',
  'GET /v1/metadata-schemas/customer',
  'POST /v1/campaigns/camp_1/transactions/export',
  'GET /v1/products/prod_1/skus',
  'POST /v1/vouchers/bulk/async',
  'GET /management/v1/projects/proj_default/stacking-rules',
]

describe('the interface’s endpoints', () => {
  it('are all routed: without credentials each asks for them (401), none is unknown (404/405)', async () => {
    const handler = createFetchHandler(testEngine().engine)
    for (const endpoint of ENDPOINTS) {
      const [method, path] = endpoint.split(' ') as [string, string]
      const res = await handler(
        new Request(`http://engine.test${path}`, {
          method,
          ...(method === 'POST' ? { body: '{}', headers: { 'Content-Type': 'application/json' } } : {}),
        }),
      )
      expect(res.status, endpoint).toBe(401)
      expect(await res.json(), endpoint).toMatchObject({ key: 'missing_header' })
    }
  })
})
