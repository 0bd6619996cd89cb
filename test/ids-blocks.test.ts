import { randomFillSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { blockRandom, createIdGenerator, systemRandom } from '../src/ids'

describe('randomness drawn in blocks', () => {
  it('1,000 ids (24,000 draws) take 6 calls into the CSPRNG with blocks of 4,096, not one per character', () => {
    let calls = 0
    const random = blockRandom((block) => {
      calls++
      randomFillSync(block)
    })
    const next = createIdGenerator(random)
    const ids = Array.from({ length: 1000 }, () => next('r_'))
    expect(new Set(ids).size).toBe(1000)
    expect(calls).toBe(Math.ceil(24_000 / 4096))
  })

  it('hands out each value of a block once, in order, as a fraction of 2^32', () => {
    let fill = 0
    const random = blockRandom((block) => {
      for (let i = 0; i < block.length; i++) block[i] = fill++ * 2 ** 28
    }, 4)
    expect(Array.from({ length: 6 }, random)).toEqual([0, 1 / 16, 2 / 16, 3 / 16, 4 / 16, 5 / 16])
  })

  it('systemRandom spreads over [0, 1): each tenth gets its share of 40,000 draws', () => {
    const tenths = new Array<number>(10).fill(0)
    let outside = 0
    for (let i = 0; i < 40_000; i++) {
      const x = systemRandom()
      if (!(x >= 0 && x < 1)) outside++
      tenths[Math.floor(x * 10)] = (tenths[Math.floor(x * 10)] ?? 0) + 1
    }
    expect(outside).toBe(0)
    // 4,000 expected per tenth with a standard deviation of 60: 300 away is five deviations.
    for (const n of tenths) expect(Math.abs(n - 4000)).toBeLessThan(300)
  })
})
