import { describe, expect, it } from 'vitest'
import { createIdGenerator, ID_PREFIX, randomString, seededRandom, systemRandom } from '../src/ids'

const take = (n: number, f: () => string): string[] => Array.from({ length: n }, f)

describe('seededRandom', () => {
  it('is mulberry32: seed 1 starts 0.6270739405881613, 0.002735721180215478', () => {
    const random = seededRandom(1)
    expect(random()).toBe(0.6270739405881613)
    expect(random()).toBe(0.002735721180215478)
  })

  it('gives the same sequence for the same seed and a different one for another seed', () => {
    const a = seededRandom(42)
    const b = seededRandom(42)
    const c = seededRandom(43)
    const seqA = Array.from({ length: 20 }, a)
    expect(Array.from({ length: 20 }, b)).toEqual(seqA)
    expect(Array.from({ length: 20 }, c)).not.toEqual(seqA)
  })

  it('stays in [0, 1)', () => {
    const random = seededRandom(2026)
    for (let i = 0; i < 5000; i++) {
      const x = random()
      expect(x >= 0 && x < 1).toBe(true)
    }
  })
})

describe('createIdGenerator', () => {
  it('makes the same ids from the same seed', () => {
    const first = createIdGenerator(seededRandom(42))
    const second = createIdGenerator(seededRandom(42))
    expect([first('camp_'), first('v_'), first('cust_')]).toEqual([
      'camp_bRqfAWGcrTFskJCVgb0Tp3a1',
      'v_G3BmW1AqUoJR23YaFeCIjrVC',
      'cust_HI4eggv5wQw860MTbt4ivHhB',
    ])
    expect([second('camp_'), second('v_'), second('cust_')]).toEqual([
      'camp_bRqfAWGcrTFskJCVgb0Tp3a1',
      'v_G3BmW1AqUoJR23YaFeCIjrVC',
      'cust_HI4eggv5wQw860MTbt4ivHhB',
    ])
  })

  it('makes different ids from a different seed', () => {
    const one = createIdGenerator(seededRandom(1))
    const two = createIdGenerator(seededRandom(2))
    const fromOne = take(5, () => one('v_'))
    const fromTwo = take(5, () => two('v_'))
    for (const id of fromTwo) expect(fromOne).not.toContain(id)
  })

  it('prefixes 24 base-62 characters by default, or the length asked for', () => {
    const next = createIdGenerator(seededRandom(7))
    for (const id of take(200, () => next('promo_'))) expect(id).toMatch(/^promo_[0-9A-Za-z]{24}$/)
    expect(createIdGenerator(seededRandom(42), 8)('ord_')).toBe('ord_bRqfAWGc')
  })

  it('uses the whole alphabet and does not repeat ids', () => {
    const next = createIdGenerator(seededRandom(9))
    const ids = take(1000, () => next('r_'))
    expect(new Set(ids).size).toBe(1000)
    const chars = new Set(ids.join('').replaceAll('r_', ''))
    expect(chars.size).toBe(62)
  })

  it('defaults to cryptographic randomness: unique, well-formed ids', () => {
    const next = createIdGenerator()
    const ids = take(100, () => next('ssn_'))
    expect(new Set(ids).size).toBe(100)
    for (const id of ids) expect(id).toMatch(/^ssn_[0-9A-Za-z]{24}$/)
    const x = systemRandom()
    expect(x >= 0 && x < 1).toBe(true)
  })
})

describe('randomString', () => {
  it('draws only from the charset, with the length asked for', () => {
    expect(randomString(seededRandom(7), 12, '0123456789')).toBe('009654425721')
    const s = randomString(seededRandom(3), 500, 'AB')
    expect(s).toMatch(/^[AB]{500}$/)
    expect(randomString(seededRandom(3), 0, 'AB')).toBe('')
  })
})

describe('ID_PREFIX', () => {
  it("has the hosted service's prefixes", () => {
    expect(ID_PREFIX).toMatchObject({
      campaign: 'camp_',
      voucher: 'v_',
      promotion_tier: 'promo_',
      promotion_stack: 'stack_',
      customer: 'cust_',
      product: 'prod_',
      sku: 'sku_',
      category: 'cat_',
      validation_rule: 'val_',
      validation_rule_assignment: 'asgm_',
      earning_rule: 'ern_',
      loyalty_tier: 'ltr_',
      reward: 'rew_',
      redemption: 'r_',
      redemption_rollback: 'rr_',
      order: 'ord_',
      session: 'ssn_',
      export: 'exp_',
      async_action: 'aa_',
    })
  })

  it('every prefix ends with an underscore and no two resources share one', () => {
    const prefixes = Object.values(ID_PREFIX)
    for (const p of prefixes) expect(p).toMatch(/^[a-z]+_$/)
    expect(new Set(prefixes).size).toBe(prefixes.length)
  })
})
