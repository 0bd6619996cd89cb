import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import type { ValidationResult } from '../../../src/rules/redeemables'
import { testEngine } from '../../support/engine'
import { propertyRuns } from '../../support/store'
import { qualificationShop, welcomeUsedOnce } from './qualifications-shop'

const cartOf = (q: { shoes: number; socks: number; bottle: number }) => ({
  items: (['shoes', 'socks', 'bottle'] as const)
    .filter((p) => q[p] > 0)
    .map((p) => ({ source_id: p, related_object: 'product', quantity: q[p] })),
})

/** Validation applies R when asked about R alone. */
function appliesAlone(result: ValidationResult): boolean {
  return result.valid && result.redeemables.some((r) => r.status === 'APPLICABLE')
}

describe('qualify ⇔ validate', () => {
  it('every candidate is listed, across all pages, exactly when validating it alone applies it', async () => {
    const s = await qualificationShop()
    // A limit the hosted qualification would skip.
    await welcomeUsedOnce(s)
    // Ana may use her wallet and the tiers; Bob only the tiers. Stored codes no one holds are no one's candidates.
    const wallets: Record<string, { object: string; id: string }[]> = {
      ana: ['WELCOME20', 'SHOES5', 'GIFT-50', 'OLD15', s.ids.card].map((id) => ({ object: 'voucher', id })),
      bob: [],
    }
    const tiers = [s.ids.shoesTier, s.ids.bigBasket].map((id) => ({ object: 'promotion_tier', id }))
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          quantities: fc.record({
            shoes: fc.integer({ min: 0, max: 3 }),
            socks: fc.integer({ min: 0, max: 4 }),
            bottle: fc.integer({ min: 0, max: 2 }),
          }),
          customer: fc.constantFrom('ana', 'bob'),
          scenario: fc.constantFrom('ALL', 'CUSTOMER_WALLET', 'AUDIENCE_ONLY'),
          limit: fc.integer({ min: 1, max: 3 }),
          sorting_rule: fc.constantFrom('BEST_DEAL', 'LEAST_DEAL', 'DEFAULT'),
        }),
        async (c) => {
          const customer = { source_id: c.customer }
          const order = cartOf(c.quantities)
          const listed: string[] = []
          let cursor: string | null = null
          do {
            const page = await s.engine.raw.qualifications.checkEligibility({
              customer,
              order,
              scenario: c.scenario,
              options: { limit: c.limit, sorting_rule: c.sorting_rule, ...(cursor ? { starting_after: cursor } : {}) },
            })
            listed.push(...page.redeemables.data.map((r) => r.id))
            cursor = page.redeemables.more_starting_after
          } while (cursor !== null)
          expect(new Set(listed).size).toBe(listed.length)
          // With a cart, offers that target only products it lacks are no candidates (they cannot discount it).
          const shoesOnly = ['SHOES5', s.ids.shoesTier]
          const unreachable = (id: string) =>
            c.scenario !== 'AUDIENCE_ONLY' &&
            order.items.length > 0 &&
            c.quantities.shoes === 0 &&
            shoesOnly.includes(id)
          const candidates = [...(wallets[c.customer] ?? []), ...(c.scenario === 'CUSTOMER_WALLET' ? [] : tiers)]
          for (const r of candidates.filter((x) => unreachable(x.id))) expect(listed).not.toContain(r.id)
          for (const r of candidates.filter((x) => !unreachable(x.id))) {
            const result = await s.engine.raw.validations.validateStackable({
              customer,
              ...(c.scenario === 'AUDIENCE_ONLY' ? {} : { order }),
              redeemables: [r],
            })
            // AUDIENCE_ONLY decides on the profile alone: rules about the cart are not evaluated, so it
            // lists at least what applies without a cart (docs/qualifications.md#scenarios).
            if (c.scenario === 'AUDIENCE_ONLY') {
              if (appliesAlone(result)) expect(listed).toContain(r.id)
            } else expect([r.id, listed.includes(r.id)]).toEqual([r.id, appliesAlone(result)])
          }
        },
      ),
      { numRuns: 20 },
    )
  })
})

/*
 * Tiers with random targeting, assigned when the tier is made or later, some turned off, and a cart of
 * random lines (by product id, by source id, by SKU, of a product the catalogue lacks). Stacking rules
 * skip a redeemable with no effect, so a tier whose discount misses the cart is one validation turns
 * down too: every stored tier, not only those the index finds, is listed exactly when validation
 * applies it alone (docs/qualifications.md#candidates).
 */
const TARGETINGS = ['all', 'product', 'bySource', 'sku', 'collection', 'skuCollection'] as const
const targetedShop = fc.record({
  tiers: fc.array(
    fc.record({
      // Each rule assigned when the tier is made, or later: a later one must move the tier's keys.
      targeting: fc.array(fc.record({ to: fc.constantFrom(...TARGETINGS), later: fc.boolean() }), { maxLength: 2 }),
      // A rule with no targeting of its own: it restricts nothing more.
      overAmount: fc.option(fc.record({ amount: fc.integer({ min: 500, max: 20000 }), later: fc.boolean() }), {
        nil: undefined,
      }),
      active: fc.boolean(),
      toOrder: fc.boolean(),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  lines: fc.uniqueArray(fc.constantFrom('shoesById', 'shoesBySource', 'size42', 'socksById', 'bottle', 'unknown'), {
    maxLength: 4,
  }),
})

async function buildTargetedShop(shop: typeof targetedShop extends fc.Arbitrary<infer S> ? S : never) {
  const { engine } = testEngine()
  await engine.raw.stackingRules.create('proj_default', { redeemables_no_effect_rule: 'SKIP' })
  const shoes = await engine.products.create({ name: 'Shoes', source_id: 'shoes', price: 10000 })
  const socks = await engine.products.create({ name: 'Socks', source_id: 'socks', price: 1000 })
  await engine.products.create({ name: 'Bottle', source_id: 'bottle', price: 2000 })
  const size42 = await engine.products.createSku(shoes.id, { sku: 'Shoes 42', source_id: 'shoes-42', price: 11000 })
  const footwear = await engine.products.createCollection({
    name: 'Footwear',
    type: 'STATIC',
    products: [{ id: socks.id, object: 'product' }],
  })
  const sizes = await engine.products.createCollection({
    name: 'Sizes',
    type: 'STATIC',
    products: [{ id: size42.id, object: 'sku' }],
  })
  const included: Record<(typeof TARGETINGS)[number], Record<string, unknown>> = {
    all: { included_all: true },
    product: { included: [{ object: 'product', id: shoes.id }] },
    bySource: { included: [{ object: 'product', id: 'prod_elsewhere', source_id: 'shoes' }] },
    sku: { included: [{ object: 'sku', id: size42.id }] },
    collection: { included: [{ object: 'products_collection', id: footwear.id }] },
    skuCollection: { included: [{ object: 'products_collection', id: sizes.id }] },
  }
  const tiers: string[] = []
  for (const [i, t] of shop.tiers.entries()) {
    const rules: { id: string; later: boolean }[] = []
    for (const [k, r] of t.targeting.entries()) {
      const rule = await engine.validationRules.create({ name: `T${i}.${k}`, rules: {}, applicable_to: included[r.to] })
      rules.push({ id: rule.id, later: r.later })
    }
    if (t.overAmount !== undefined) {
      const over = await engine.validationRules.create({
        name: `Over ${i}`,
        rules: { '1': { name: 'order.amount', conditions: { $more_than: [t.overAmount.amount] } } },
      })
      rules.push({ id: over.id, later: t.overAmount.later })
    }
    const now = rules.filter((r) => !r.later).map((r) => r.id)
    const effect = t.targeting.length === 0 && t.toOrder ? 'APPLY_TO_ORDER' : 'APPLY_TO_ITEMS'
    const campaign = await engine.raw.promotions.create({
      name: `Promotion ${i}`,
      promotion: {
        tiers: [
          {
            name: `Tier ${i}`,
            active: t.active,
            action: { discount: { type: 'AMOUNT', amount_off: 300, effect } },
            ...(now.length === 0 ? {} : { validation_rules: now }),
          },
        ],
      },
    })
    const id = campaign.promotion.tiers[0]?.id ?? ''
    for (const rule of rules.filter((r) => r.later)) {
      await engine.validationRules.createAssignment(rule.id, {
        related_object_type: 'promotion_tier',
        related_object_id: id,
      })
    }
    tiers.push(id)
  }
  const lineOf = {
    shoesById: { product_id: shoes.id, quantity: 1 },
    shoesBySource: { source_id: 'shoes', related_object: 'product', quantity: 2 },
    size42: { source_id: 'shoes-42', related_object: 'sku', quantity: 1 },
    socksById: { product_id: socks.id, quantity: 3 },
    bottle: { source_id: 'bottle', related_object: 'product', quantity: 1 },
    unknown: { source_id: 'unknown', related_object: 'product', quantity: 1, price: 700 },
  }
  return { engine, tiers, order: { items: shop.lines.map((l) => lineOf[l]) } }
}

// 1.3–2.2 s on a 2-core machine at load 18: a safety limit, no timing is asserted.
describe('qualify ⇔ validate, tiers found by what they target', { timeout: 60_000 }, () => {
  it('every stored tier is listed exactly when validating it alone applies it', async () => {
    await fc.assert(
      fc.asyncProperty(targetedShop, async (shop) => {
        const { engine, tiers, order } = await buildTargetedShop(shop)
        const result = await engine.raw.qualifications.checkEligibility({ order, options: { limit: 50 } })
        const listed = new Set(result.redeemables.data.map((r) => r.id))
        for (const id of tiers) {
          const validation = await engine.raw.validations.validateStackable({
            order,
            redeemables: [{ object: 'promotion_tier', id }],
          })
          expect([id, listed.has(id)]).toEqual([id, appliesAlone(validation)])
        }
      }),
      { numRuns: propertyRuns(60) },
    )
  })
})

const smallShop = fc.record({
  rules: fc.record({
    applicable_redeemables_limit: fc.integer({ min: 1, max: 5 }),
    applicable_redeemables_per_category_limit: fc.integer({ min: 1, max: 2 }),
    redeemables_application_mode: fc.constantFrom('ALL', 'PARTIAL'),
    redeemables_sorting_rule: fc.constantFrom('REQUESTED_ORDER', 'CATEGORY_HIERARCHY'),
  }),
  exclusive: fc.boolean(),
  offers: fc.array(
    fc.record({
      discount: fc.oneof(
        fc.record({ type: fc.constant('PERCENT'), percent_off: fc.integer({ min: 5, max: 50 }) }),
        fc.record({ type: fc.constant('AMOUNT'), amount_off: fc.integer({ min: 100, max: 6000 }) }),
      ),
      onShoes: fc.boolean(),
      category: fc.integer({ min: 0, max: 2 }),
      minAmount: fc.option(fc.integer({ min: 1000, max: 30000 }), { nil: undefined }),
    }),
    { minLength: 1, maxLength: 6 },
  ),
  shoes: fc.integer({ min: 0, max: 3 }),
  socks: fc.integer({ min: 0, max: 6 }),
})
type SmallShop = typeof smallShop extends fc.Arbitrary<infer S> ? S : never

async function buildSmallShop(shop: SmallShop) {
  const t = testEngine()
  const { engine } = t
  const cats = [
    await engine.categories.create({ name: 'First', hierarchy: 1 }),
    await engine.categories.create({ name: 'Second', hierarchy: 2 }),
  ]
  await engine.raw.stackingRules.create('proj_default', {
    ...shop.rules,
    applicable_redeemables_per_category_limit: Math.min(
      shop.rules.applicable_redeemables_per_category_limit,
      shop.rules.applicable_redeemables_limit,
    ),
    exclusive_categories: shop.exclusive ? [cats[1]?.id] : [],
  })
  const shoes = await engine.products.create({ name: 'Shoes', source_id: 'shoes', price: 12000 })
  await engine.products.create({ name: 'Socks', source_id: 'socks', price: 1500 })
  const onShoes = await engine.validationRules.create({
    name: 'Shoes',
    rules: {},
    applicable_to: { included: [{ object: 'product', id: shoes.id }] },
  })
  const codes: string[] = []
  for (const [i, offer] of shop.offers.entries()) {
    const code = `OFFER${i}`
    codes.push(code)
    const category = cats[offer.category]
    await engine.vouchers.create({
      code,
      type: 'DISCOUNT_VOUCHER',
      discount: { ...offer.discount, effect: offer.onShoes ? 'APPLY_TO_ITEMS' : 'APPLY_TO_ORDER' },
      ...(category ? { category_id: category.id } : {}),
    })
    if (offer.onShoes)
      await engine.validationRules.createAssignment(onShoes.id, {
        related_object_type: 'voucher',
        related_object_id: code,
      })
    if (offer.minAmount !== undefined) {
      const min = await engine.validationRules.create({
        name: `Over ${offer.minAmount}`,
        rules: { '1': { name: 'order.amount', conditions: { $more_than: [offer.minAmount] } } },
      })
      await engine.validationRules.createAssignment(min.id, { related_object_type: 'voucher', related_object_id: code })
    }
  }
  const order = cartOf({ shoes: shop.shoes, socks: shop.socks, bottle: 0 })
  return { engine, codes, order }
}

/** Every subset of `codes`, in their order (the application order the best stack keeps). */
function subsets<T>(items: readonly T[]): T[][] {
  const out: T[][] = []
  for (let mask = 1; mask < 1 << items.length; mask++) out.push(items.filter((_, i) => (mask >> i) & 1))
  return out
}

describe('the best stack', { timeout: 60_000 }, () => {
  it('is never below the best subset found by brute force, and validates to what it says', async () => {
    await fc.assert(
      fc.asyncProperty(smallShop, async (shop) => {
        const { engine, codes, order } = await buildSmallShop(shop)
        if (order.items.length === 0) return
        let brute = 0
        for (const subset of subsets(codes)) {
          const result = await engine.raw.validations.validateStackable({
            order,
            redeemables: subset.map((id) => ({ object: 'voucher', id })),
          })
          const allApply = result.valid && result.redeemables.length === subset.length
          if (allApply && result.redeemables.every((r) => r.status === 'APPLICABLE'))
            brute = Math.max(brute, result.order.total_discount_amount)
        }
        const best = await engine.raw.qualifications.bestStack({
          order,
          redeemables: codes.map((id) => ({ object: 'voucher', id })),
        })
        expect(best.total_discount).toBeGreaterThanOrEqual(brute)
        expect(best.exact).toBe(true)
        if (best.request) {
          const again = await engine.validations.validateStackable(best.request)
          expect(again.order.total_discount_amount).toBe(best.total_discount)
          expect(again.redeemables.map((r) => r.status)).toEqual(best.request.redeemables.map(() => 'APPLICABLE'))
          expect(best.request.redeemables.length).toBeLessThanOrEqual(shop.rules.applicable_redeemables_limit)
        } else expect(brute).toBe(0)
      }),
      { numRuns: 25 },
    )
  })
})
