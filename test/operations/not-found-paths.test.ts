import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'

/** A 404 for a path parameter names that parameter in `path`, as every 400 names its field. */
describe('404 path of path parameters', () => {
  it('names campaignId, memberId, promotionTierId, productId, customerId, rewardId', async () => {
    const { engine } = testEngine()
    const cases: [Promise<unknown>, string][] = [
      [engine.loyalties.createMember('nope', { customer: { source_id: 'a' } }), 'campaignId'],
      [engine.loyalties.listTiers('nope'), 'campaignId'],
      [engine.campaigns.get('nope'), 'campaignId'],
      [engine.loyalties.getMember(null, 'nope'), 'memberId'],
      [engine.promotions.tiers.get('nope'), 'promotionTierId'],
      [engine.products.listSkus('nope'), 'productId'],
      [engine.customers.listActivity('nope'), 'customerId'],
      [engine.customers.get('nope'), 'customerId'],
      [engine.rewards.get('nope'), 'rewardId'],
      [engine.orders.get('nope'), 'orderId'],
    ]
    // All run at once; on a database the later ones reject while an earlier one is awaited: handled here.
    for (const [promise] of cases) promise.catch(() => undefined)
    for (const [promise, path] of cases) {
      await expect(promise).rejects.toMatchObject({ code: 404, key: 'not_found', path })
    }
  })
})
