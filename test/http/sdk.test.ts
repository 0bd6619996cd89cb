import { VoucherifyClientSide, VoucherifyServerSide } from '@voucherify/sdk'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RunningServer, startServer } from '../../packages/server/src/server'

/**
 * The official SDK, unmodified, against the reference server: configured with keys and `apiUrl` only,
 * as a hosted-service user configures it, namespace by namespace, checked on the fields users read.
 */
let server: RunningServer
let sdk: ReturnType<typeof VoucherifyServerSide>
let browser: ReturnType<typeof VoucherifyClientSide>

beforeAll(async () => {
  server = await startServer({ asyncIntervalMs: 0, settings: { clientOrigins: ['https://shop.example'] } })
  sdk = VoucherifyServerSide({
    applicationId: server.keys.server.app_id,
    secretKey: server.keys.server.secret,
    apiUrl: server.url,
  })
  browser = VoucherifyClientSide({
    clientApplicationId: server.keys.client.app_id,
    clientSecretKey: server.keys.client.secret,
    origin: 'https://shop.example',
    apiUrl: server.url,
  })
})
afterAll(() => server.close())

/** What the SDK rejects with: a VoucherifyError carrying the server's JSON. */
async function failure(promise: Promise<unknown>): Promise<{ code: number; key: string; request_id: string }> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeDefined()
  return error as { code: number; key: string; request_id: string }
}

const runPending = () => server.engine.asyncActions.runPending()

describe('@voucherify/sdk against the reference server', () => {
  it('authenticates with the keys alone; wrong keys and unknown endpoints are clear 4xx', async () => {
    const wrong = VoucherifyServerSide({
      applicationId: server.keys.server.app_id,
      secretKey: 'x'.repeat(43),
      apiUrl: server.url,
    })
    expect(await failure(wrong.vouchers.get('ANY'))).toMatchObject({ code: 401, key: 'unauthorized' })
    expect(await failure(sdk.vouchers.list())).toMatchObject({ code: 405, key: 'method_not_allowed' })
    expect(await failure(sdk.segments.get('seg_1'))).toMatchObject({
      code: 404,
      key: 'endpoint_not_found',
      request_id: expect.stringMatching(/^req_/),
    })
  })

  it('vouchers: create with the code in the path, get, bulk update through an async action', async () => {
    const created = await sdk.vouchers.create({
      code: 'SDK-TEN',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' },
      redemption: { quantity: 10 },
    } as never)
    expect(created).toMatchObject({ code: 'SDK-TEN', type: 'DISCOUNT_VOUCHER', discount: { amount_off: 1000 } })
    const got = await sdk.vouchers.get('SDK-TEN')
    expect(got).toMatchObject({ id: created.id, redemption: { quantity: 10, redeemed_quantity: 0 } })
    const bulk = await sdk.vouchers.bulkUpdate([{ code: 'SDK-TEN', metadata: { batch: 'b1' } }])
    expect(bulk.async_action_id).toMatch(/^aa_/)
    await runPending()
    const action = await sdk.asyncActions.get(bulk.async_action_id)
    expect(action).toMatchObject({ id: bulk.async_action_id, status: 'DONE' })
    expect((await sdk.vouchers.get('SDK-TEN')).metadata).toEqual({ batch: 'b1' })
  })

  it('vouchers: create without a code (POST /v1/vouchers/, a trailing slash) gets a generated one', async () => {
    const created = await sdk.vouchers.create({
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 500, effect: 'APPLY_TO_ORDER' },
    } as never)
    expect(created.code).toMatch(/^[0-9A-Za-z]{8}$/)
    expect(await sdk.vouchers.get(created.code)).toMatchObject({ id: created.id, discount: { amount_off: 500 } })
  })

  it('validations, redemptions and rollbacks', async () => {
    const order = { amount: 5000, items: [{ source_id: 'sku-a', quantity: 1, price: 5000 }] }
    const validation = await sdk.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'SDK-TEN' }],
      order,
      customer: { source_id: 'sdk-ann' },
    })
    expect(validation).toMatchObject({
      valid: true,
      order: { amount: 5000, total_discount_amount: 1000, total_amount: 4000 },
    })
    expect(validation.redeemables?.[0]).toMatchObject({ status: 'APPLICABLE', id: 'SDK-TEN' })
    const locked = await sdk.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'SDK-TEN' }],
      order,
      session: { type: 'LOCK' },
    } as never)
    const sessionKey = locked.session?.key ?? ''
    expect(sessionKey).not.toBe('')
    await sdk.vouchers.releaseValidationSession('SDK-TEN', sessionKey)
    expect(await failure(sdk.vouchers.releaseValidationSession('SDK-TEN', 'ssn_unknown'))).toMatchObject({ code: 404 })
    const redeemed = await sdk.redemptions.redeemStackable({
      redeemables: [{ object: 'voucher', id: 'SDK-TEN' }],
      order,
      customer: { source_id: 'sdk-ann' },
    })
    expect(redeemed.parent_redemption).toMatchObject({ result: 'SUCCESS', status: 'SUCCEEDED' })
    expect(redeemed.order).toMatchObject({ total_amount: 4000 })
    const child = redeemed.redemptions[0]
    expect(await sdk.redemptions.get(child?.id ?? '')).toMatchObject({ id: child?.id, result: 'SUCCESS' })
    const rolled = await sdk.redemptions.rollbackStackable(
      redeemed.parent_redemption.id,
      {},
      { reason: 'changed mind' },
    )
    expect(rolled.parent_rollback).toMatchObject({ result: 'SUCCESS', reason: 'changed mind' })
    expect((await sdk.vouchers.get('SDK-TEN')).redemption?.redeemed_quantity).toBe(0)
  })

  it('campaigns and promotions with tiers and stacks', async () => {
    const campaign = await sdk.campaigns.create({
      name: 'SDK codes',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'AUTO_UPDATE',
      vouchers_count: 2,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 5 } },
    } as never)
    expect(campaign).toMatchObject({ name: 'SDK codes', campaign_type: 'DISCOUNT_COUPONS' })
    expect(await sdk.campaigns.get(campaign.id)).toMatchObject({ id: campaign.id, name: 'SDK codes' })
    const promo = await sdk.promotions.create({
      name: 'SDK sale',
      campaign_type: 'PROMOTION',
      promotion: { tiers: [{ name: 'Five off', action: { discount: { type: 'AMOUNT', amount_off: 500 } } }] },
    } as never)
    expect(promo).toMatchObject({ name: 'SDK sale', campaign_type: 'PROMOTION' })
    const tier = await sdk.promotions.tiers.create(promo.id, {
      name: 'Ten off',
      action: { discount: { type: 'AMOUNT', amount_off: 1000 } },
    } as never)
    expect(await sdk.promotions.tiers.get(tier.id)).toMatchObject({ id: tier.id, name: 'Ten off' })
    const listed = await sdk.promotions.tiers.list(promo.id)
    expect(listed).toMatchObject({ object: 'list', data_ref: 'tiers', has_more: false })
    expect(listed.tiers.map((t) => t.name)).toEqual(['Five off', 'Ten off'])
    const stack = await sdk.promotions.stack.createInCampaign(promo.id, {
      name: 'Both',
      tiers: { ids: [tier.id], hierarchy_mode: 'MANUAL' },
    } as never)
    expect(stack).toMatchObject({ name: 'Both', tiers: { ids: [tier.id] } })
    expect((await sdk.promotions.stack.listInCampaign(promo.id)).data.map((s) => s.id)).toEqual([stack.id])
    expect((await sdk.promotions.stack.list()).total).toBeGreaterThanOrEqual(1)
    expect(await sdk.promotions.stack.get(promo.id, stack.id)).toMatchObject({ id: stack.id })
  })

  it('customers and their activity, orders, custom events, metadata schemas', async () => {
    const customer = (await sdk.customers.create({ source_id: 'sdk-bob', name: 'Bob', email: 'bob@example.com' })) as {
      id: string
    }
    expect(customer).toMatchObject({ source_id: 'sdk-bob', name: 'Bob', object: 'customer' })
    expect(await sdk.customers.get(customer.id)).toMatchObject({ id: customer.id, email: 'bob@example.com' })
    const order = await sdk.orders.create({
      source_id: 'sdk-o1',
      amount: 2000,
      customer: { source_id: 'sdk-bob' },
    } as never)
    expect(order).toMatchObject({ source_id: 'sdk-o1', amount: 2000, status: 'CREATED' })
    const paid = await sdk.orders.update({ id: order.id ?? '', status: 'PAID' } as never)
    expect(paid).toMatchObject({ id: order.id, status: 'PAID' })
    expect(await sdk.orders.get(order.id ?? '')).toMatchObject({ status: 'PAID' })
    // The customer with its summary, loyalty and referrals (docs/behaviour.md#customer-loyalty-and-referrals).
    expect(await sdk.customers.get(customer.id)).toMatchObject({
      summary: { orders: { total_amount: 2000, total_count: 1 } },
      loyalty: { points: 0, referred_customers: 0, campaigns: {} },
      referrals: { total: 0, campaigns: [] },
    })
    const schema = await sdk.metadataSchemas.get('visited_store').catch(() => undefined)
    expect(schema).toBeUndefined()
    await server.engine.metadataSchemas.create({ related_object: 'visited_store', properties: {} })
    expect(await sdk.metadataSchemas.get('visited_store')).toMatchObject({ related_object: 'visited_store' })
    expect((await sdk.metadataSchemas.list()).schemas.length).toBeGreaterThanOrEqual(1)
    const event = await sdk.events.create('visited_store', { customer: { source_id: 'sdk-bob' } } as never)
    expect(event).toMatchObject({ object: 'event', type: 'visited_store', customer: { source_id: 'sdk-bob' } })
    const activity = await sdk.customers.listActivity(customer.id, { limit: 50 } as never)
    expect(activity.data.map((a) => a.type as string)).toContain('customer.custom_event')
    const activities = await sdk.customers.listActivities(customer.id, { limit: 50 } as never)
    expect(activities.data.length).toBe(activity.data.length)
  })

  it('loyalties: program, members, earning rules, tiers, rewards and redemption', async () => {
    const program = await sdk.loyalties.create({
      name: 'SDK club',
      type: 'AUTO_UPDATE',
      vouchers_count: 2,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'SDK-####' } },
    } as never)
    await runPending()
    expect(await sdk.loyalties.get(program.id)).toMatchObject({ id: program.id, campaign_type: 'LOYALTY_PROGRAM' })
    expect((await sdk.loyalties.list()).campaigns?.map((c: { id: string }) => c.id)).toContain(program.id)
    const [rule] = await sdk.loyalties.createEarningRule(program.id, [
      { event: 'order.paid', loyalty: { type: 'FIXED', points: 100 } },
    ] as never)
    expect(rule).toMatchObject({ event: 'order.paid', loyalty: { type: 'FIXED', points: 100 } })
    expect((await sdk.loyalties.listEarningRules(program.id)).data.map((r: { id: string }) => r.id)).toEqual([rule?.id])
    const tiers = await sdk.loyalties.createTiers(program.id, [
      { name: 'Base', points: { from: 0, to: 1000 } },
    ] as never)
    expect(tiers[0]).toMatchObject({ name: 'Base', points: { from: 0, to: 1000 } })
    expect((await sdk.loyalties.listTiers(program.id)).data).toHaveLength(1)
    const card = await sdk.loyalties.createMember(program.id, { customer: { source_id: 'sdk-carol' } } as never)
    expect(card).toMatchObject({ type: 'LOYALTY_CARD', loyalty_card: { points: 0 } })
    await sdk.orders.create({ amount: 3000, status: 'PAID', customer: { source_id: 'sdk-carol' } } as never)
    expect(await sdk.loyalties.getMember(program.id, card.code)).toMatchObject({
      loyalty_card: { points: 100, balance: 100 },
    })
    expect(await sdk.loyalties.getMember(null as never, card.id)).toMatchObject({ code: card.code })
    const mug = await sdk.products.create({ source_id: 'sdk-mug', name: 'Mug', price: 900 } as never)
    const reward = await sdk.rewards.create({
      name: 'Mug',
      type: 'MATERIAL',
      parameters: { product: { id: mug.id } },
      stock: 5,
    } as never)
    expect(await sdk.rewards.get(reward.id)).toMatchObject({ id: reward.id, type: 'MATERIAL', stock: 5 })
    const assignment = await sdk.rewards.createAssignment(reward.id, {
      campaign: program.id,
      parameters: { loyalty: { points: 40 } },
    } as never)
    expect(assignment).toMatchObject({ reward_id: reward.id, parameters: { loyalty: { points: 40 } } })
    const redemption = await sdk.loyalties.redeemReward(program.id, card.code, { reward: { id: reward.id } } as never)
    const pen = await sdk.rewards.create({
      name: 'Pen',
      type: 'MATERIAL',
      parameters: { product: { id: mug.id } },
    } as never)
    const viaProgram = await sdk.loyalties.createRewardAssignments(program.id, [
      { reward: pen.id, parameters: { loyalty: { points: 5 } } },
    ])
    expect(viaProgram).toMatchObject({
      reward_id: pen.id,
      related_object_id: program.id,
      parameters: { loyalty: { points: 5 } },
    })
    expect(redemption).toMatchObject({ result: 'SUCCESS', object: 'redemption' })
    expect((await sdk.loyalties.getMember(program.id, card.code)).loyalty_card).toMatchObject({ balance: 60 })
    const undone = await sdk.redemptions.rollback(redemption.id, { reason: 'wrong mug' })
    expect(undone).toMatchObject({ result: 'SUCCESS', redemption: redemption.id, reason: 'wrong mug' })
    expect((await sdk.loyalties.getMember(program.id, card.code)).loyalty_card).toMatchObject({ balance: 100 })
  })

  it('products, SKUs, categories, validation rules and their assignments', async () => {
    const product = await sdk.products.create({ source_id: 'sdk-shirt', name: 'Shirt', price: 2500 } as never)
    expect(product).toMatchObject({ source_id: 'sdk-shirt', name: 'Shirt', price: 2500 })
    const sku = await sdk.products.createSku(product.id, { source_id: 'sdk-shirt-m', sku: 'M', price: 2600 } as never)
    expect(sku).toMatchObject({ source_id: 'sdk-shirt-m', product_id: product.id })
    expect((await sdk.products.listSkus(product.id)).skus.map((s: { id: string }) => s.id)).toEqual([sku.id])
    const collection = await sdk.productCollections.create({
      name: 'SDK picks',
      type: 'STATIC',
      products: [{ id: product.id, object: 'product' }],
    } as never)
    expect(await sdk.productCollections.get(collection.id)).toMatchObject({ id: collection.id, name: 'SDK picks' })
    const category = await sdk.categories.create({ name: 'SDK category', hierarchy: 1 })
    expect(await sdk.categories.get(category.id)).toMatchObject({ name: 'SDK category', hierarchy: 1 })
    const rule = await sdk.validationRules.create({
      name: 'Over 10',
      rules: { '1': { name: 'order.amount', conditions: { $more_than: [1000] } }, logic: '1' },
    } as never)
    expect(await sdk.validationRules.get(rule.id)).toMatchObject({ id: rule.id, name: 'Over 10' })
    const voucher = await sdk.vouchers.get('SDK-TEN')
    const assigned = await sdk.validationRules.createAssignment(rule.id, { voucher: voucher.id })
    expect(assigned).toMatchObject({ rule_id: rule.id, related_object_id: voucher.id, related_object_type: 'voucher' })
  })

  it('publications and the exports a campaign makes', async () => {
    const published = await sdk.distributions.publications.create({
      campaign: { name: 'SDK codes' },
      customer: { source_id: 'sdk-dave' },
    } as never)
    expect(published).toMatchObject({ result: 'SUCCESS', customer: { source_id: 'sdk-dave' } })
    expect(published.voucher?.code).toBeTypeOf('string')
    const exp = await sdk.distributions.exports.create({
      exported_object: 'customer',
      parameters: {
        order: 'created_at',
        fields: ['source_id', 'name'],
        filters: { source_id: { conditions: { $starts_with: ['sdk-'] } } },
      },
    } as never)
    expect(exp).toMatchObject({ object: 'export', status: 'SCHEDULED', exported_object: 'customer' })
    await runPending()
    const done = await sdk.distributions.exports.get(exp.id)
    expect(done).toMatchObject({ id: exp.id, status: 'DONE' })
    // The url is a signed link: a browser or curl downloads it as it is, without the keys.
    const url = done.result?.url ?? ''
    expect(url).toMatch(new RegExp(`^${server.url}/v1/files/file_\\w+\\?expires=\\d+&signature=[\\w-]{43}$`))
    const file = await fetch(url)
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    const lines = (await file.text()).trimEnd().split('\r\n')
    expect(lines[0]).toBe('source_id,name')
    expect(lines).toContain('sdk-bob,Bob')
    expect(lines.slice(1).every((l) => l.startsWith('sdk-'))).toBe(true)
    // The keys still work on the bare url.
    const bare = await fetch(url.split('?')[0] ?? '', {
      headers: { 'X-App-Id': server.keys.server.app_id, 'X-App-Token': server.keys.server.secret },
    })
    expect((await bare.text()).split('\r\n')[0]).toBe('source_id,name')
  })

  it('qualifications: the promotion tiers a cart qualifies for, server and client side', async () => {
    const body = { customer: { source_id: 'sdk-quals' }, order: { amount: 20000 }, scenario: 'ALL' }
    const server = await sdk.qualifications.checkEligibility(body as never)
    expect(server.redeemables).toMatchObject({ object: 'list', data_ref: 'data' })
    const names = server.redeemables.data.map((r: { id: string; object: string }) => r.object)
    expect(names).toContain('promotion_tier')
    const fromBrowser = await browser.qualifications(body as never)
    expect(fromBrowser.redeemables.total).toBe(server.redeemables.total)
    // The client side may not turn the limit checks off.
    const unchecked = { ...body, options: { check_limits: false } }
    expect(await failure(browser.qualifications(unchecked as never))).toMatchObject({ code: 400 })
  })

  it('the client-side SDK validates and redeems from an allowed origin, and is refused from another', async () => {
    await sdk.vouchers.create({
      code: 'SDK-CLIENT',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'PERCENT', percent_off: 10 },
    } as never)
    const body = { redeemables: [{ object: 'voucher' as const, id: 'SDK-CLIENT' }], order: { amount: 1000 } }
    expect(await browser.validateStackable(body as never)).toMatchObject({ valid: true, order: { total_amount: 900 } })
    const redeemed = await browser.redeemStackable({ ...body, customer: { source_id: 'sdk-web' } } as never)
    expect(redeemed.parent_redemption).toMatchObject({ result: 'SUCCESS' })
    const tracked = await browser.track('visited_store', { source_id: 'sdk-web' })
    expect(tracked).toMatchObject({ object: 'event', type: 'visited_store', customer: { source_id: 'sdk-web' } })
    const foreign = VoucherifyClientSide({
      clientApplicationId: server.keys.client.app_id,
      clientSecretKey: server.keys.client.secret,
      origin: 'https://evil.example',
      apiUrl: server.url,
    })
    expect(await failure(foreign.validateStackable(body as never))).toMatchObject({
      code: 403,
      key: 'origin_not_allowed',
    })
    // Server keys cannot call the client family, nor client keys the server family.
    const crossed = VoucherifyServerSide({
      applicationId: server.keys.client.app_id,
      secretKey: server.keys.client.secret,
      apiUrl: server.url,
    })
    expect(await failure(crossed.vouchers.get('SDK-CLIENT'))).toMatchObject({ code: 401 })
  })
})
