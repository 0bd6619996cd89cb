import { describe, expect, it } from 'vitest'
import { BEST_STACK_EXACT_CANDIDATES, searchBestStack } from '../../../src/rules/stacking/search-best-stack'

const candidates = (solos: readonly number[]) =>
  solos.map((solo, i) => ({ key: `K${String(i).padStart(2, '0')}`, solo }))
/** Discounts add up; `clash` lists pairs of positions that cannot apply together. */
const additive =
  (solos: readonly number[], clash: readonly [number, number][] = []) =>
  (positions: readonly number[]) =>
    clash.some(([a, b]) => positions.includes(a) && positions.includes(b))
      ? null
      : positions.reduce((sum, p) => sum + (solos[p] ?? 0), 0)

describe('searchBestStack', () => {
  it('takes the largest discounts the slots allow, positions ascending', () => {
    const solos = [300, 900, 100, 500, 700]
    const best = searchBestStack(candidates(solos), { slots: 2, evaluate: additive(solos) })
    expect(best).toMatchObject({ chosen: [1, 4], value: 1600, exact: true, unsearched: [] })
  })

  it('goes around a pair that cannot apply together', () => {
    const solos = [1000, 900, 800]
    const best = searchBestStack(candidates(solos), { slots: 2, evaluate: additive(solos, [[0, 1]]) })
    expect(best).toMatchObject({ chosen: [0, 2], value: 1800 })
  })

  it('breaks ties by fewer redeemables, then by the smaller keys', () => {
    // {0} and {1, 2} both give 600, and 0 cannot stack: one redeemable wins over two.
    const solos = [600, 300, 300]
    const alone = additive(solos, [
      [0, 1],
      [0, 2],
    ])
    expect(searchBestStack(candidates(solos), { slots: 2, evaluate: alone }).chosen).toEqual([0])
    // {0, 1, 3} and {0, 2, 3} both give 1250: K01 is the smaller key.
    const even = [500, 250, 250, 500]
    expect(searchBestStack(candidates(even), { slots: 3, evaluate: additive(even) }).chosen).toEqual([0, 1, 3])
  })

  it('prunes: far fewer subsets than all of them are evaluated', () => {
    const solos = [800, 700, 600, 500, 400, 300, 200, 100, 90, 80, 70, 60]
    const best = searchBestStack(candidates(solos), { slots: 5, evaluate: additive(solos) })
    expect(best.chosen).toEqual([0, 1, 2, 3, 4])
    // C(12, 1..5) = 1,585 subsets; the bound stops at the first branch that cannot beat the best.
    expect(best.evaluated).toBeLessThan(100)
  })

  it(`searches the ${BEST_STACK_EXACT_CANDIDATES} best alone above that count, and says so`, () => {
    const solos = Array.from({ length: BEST_STACK_EXACT_CANDIDATES + 2 }, (_, i) => 100 + i)
    const best = searchBestStack(candidates(solos), { slots: 3, evaluate: additive(solos) })
    expect(best.exact).toBe(false)
    expect(best.unsearched).toEqual([0, 1])
    expect(best.chosen).toEqual([15, 16, 17])
  })

  it('chooses nothing when nothing applies', () => {
    const best = searchBestStack(candidates([100, 200]), { slots: 2, evaluate: () => null })
    expect(best).toMatchObject({ chosen: [], value: 0 })
  })
})
