import { bench, describe } from 'vitest'
import { qualificationBenchShop } from './qualifications-shop'

/**
 * Qualifications on the memory store (the shop: bench/qualifications-shop.ts): 1,000 active promotion
 * tiers of which 50 could discount the cart, a customer holding 50 codes, a 20-line cart. A
 * qualification (scenario ALL, 50 per page, best deal first), and the best stack over 12 candidates
 * with 5 slots. Percentiles and CPU time: bench/qualifications-percentiles.ts.
 */

const { engine, qualification, best } = await qualificationBenchShop(1000)

describe('qualifications (memory store; 1,000 tiers, 50 reach the cart; 50-code wallet)', () => {
  bench(
    'checkEligibility: ALL, 20-line cart, 50 per page, BEST_DEAL',
    async () => {
      await engine.raw.qualifications.checkEligibility(qualification)
    },
    { time: 3000 },
  )

  bench(
    'bestStack: 12 candidates, 5 slots',
    async () => {
      await engine.raw.qualifications.bestStack(best)
    },
    { time: 3000 },
  )
})
