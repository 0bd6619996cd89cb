import { createEngine } from '../src/engine'
import { seededRandom } from '../src/ids'
import { createMemoryStore } from '../src/memory'

/**
 * The qualification bench's shop (memory store): `tiers` active promotion tiers (in campaigns of 20),
 * of which 50 could discount the cart (30 with no product restriction, 20 targeting one of its
 * products; every other one targets a product it lacks), and a customer holding 50 codes. The cart
 * has 20 lines. `bestStack` asks for the best of 12 candidates with 5 slots.
 */
export async function qualificationBenchShop(tiers = 1000) {
  const NOW = new Date('2026-11-24T12:00:00.000Z')
  const store = createMemoryStore()
  const engine = createEngine({ store, clock: { now: () => NOW }, random: seededRandom(17) })

  const products: string[] = []
  for (let i = 0; i < 220; i++) {
    const p = await engine.products.create({ name: `P${i}`, source_id: `p${i}`, price: 1000 + ((i * 37) % 40) * 100 })
    products.push(p.id)
  }
  // One targeting rule per product: the first 20 products are the cart's.
  const targeting: string[] = []
  for (const id of products) {
    const rule = await engine.validationRules.create({
      name: `On ${id}`,
      rules: {},
      applicable_to: { included: [{ object: 'product', id }] },
    })
    targeting.push(rule.id)
  }

  const tierIds: string[] = []
  for (let c = 0; c < tiers / 20; c++) {
    const campaign = await engine.promotions.create({
      name: `Promotion ${c}`,
      promotion: {
        tiers: Array.from({ length: 20 }, (_, t) => {
          const n = c * 20 + t
          const effect = n < 30 ? 'APPLY_TO_ORDER' : 'APPLY_TO_ITEMS'
          // Tiers 30–49 target a cart product; from 50 on, a product the cart lacks.
          const product = n < 30 ? undefined : n < 50 ? n - 30 : 20 + (n % 200)
          return {
            name: `Tier ${n}`,
            action: {
              discount:
                n % 2 === 0
                  ? { type: 'PERCENT', percent_off: 1 + (n % 15), effect }
                  : { type: 'AMOUNT', amount_off: 100 + (n % 9) * 50, effect },
            },
            ...(product === undefined ? {} : { validation_rules: [targeting[product] as string] }),
          }
        }),
      },
    })
    for (const tier of campaign.promotion.tiers) tierIds.push(tier.id)
  }

  await engine.customers.create({ source_id: 'ana' })
  const wallet: string[] = []
  for (let i = 0; i < 50; i++) {
    const code = `ANA-${String(i).padStart(2, '0')}`
    await engine.vouchers.create({
      code,
      type: 'DISCOUNT_VOUCHER',
      discount:
        i % 2 === 0 ? { type: 'PERCENT', percent_off: 2 + (i % 10) } : { type: 'AMOUNT', amount_off: 200 + i * 10 },
    })
    await engine.raw.publications.create({ customer: { source_id: 'ana' }, voucher: code })
    wallet.push(code)
  }

  const order = {
    items: Array.from({ length: 20 }, (_, i) => ({ product_id: products[i], quantity: 1 + (i % 3) })),
  }
  const qualification = {
    customer: { source_id: 'ana' },
    order,
    options: { limit: 50, sorting_rule: 'BEST_DEAL' },
  }
  const best = {
    customer: { source_id: 'ana' },
    order,
    redeemables: [
      ...wallet.slice(0, 6).map((id) => ({ object: 'voucher', id })),
      ...tierIds.slice(24, 30).map((id) => ({ object: 'promotion_tier', id })),
    ],
  }

  const check = await engine.raw.qualifications.checkEligibility(qualification)
  // 50 wallet codes + the 50 tiers that could reach the cart all apply on it.
  if (check.redeemables.total !== 100)
    throw new Error(`bench setup: expected 100 listed, got ${check.redeemables.total}`)
  const stack = await engine.raw.qualifications.bestStack(best)
  if (stack.request?.redeemables.length !== 5) throw new Error('bench setup: expected a stack of 5')
  return { engine, store, qualification, best }
}
