import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { seededRandom } from '../../src/ids'
import { generateCode, generateUniqueCodes } from '../../src/rules/codes'

const literal = fc.string({ unit: fc.constantFrom('A', 'b', '-', '_', '9'), maxLength: 4 })

describe('code generation properties', () => {
  it('keeps every non-# character of the pattern and draws each # from the charset', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(literal, fc.constant('#')), { minLength: 1, maxLength: 8 }),
        fc.string({ unit: fc.constantFrom('x', 'y', 'z', '7'), minLength: 1, maxLength: 4 }),
        fc.integer(),
        (parts, charset, seed) => {
          const pattern = `${parts.join('')}#`
          const code = generateCode({ pattern, charset, prefix: 'P', postfix: 'S' }, seededRandom(seed))
          expect(code.length).toBe(pattern.length + 2)
          expect(code.startsWith('P') && code.endsWith('S')).toBe(true)
          const body = code.slice(1, -1)
          for (let i = 0; i < pattern.length; i++) {
            if (pattern[i] === '#') expect(charset).toContain(body[i])
            else expect(body[i]).toBe(pattern[i])
          }
        },
      ),
      { numRuns: 200 },
    )
  })

  it('gives distinct codes avoiding the taken ones whenever the space allows', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 20 }),
        fc.integer(),
        (hashes, count, seed) => {
          const config = { pattern: 'C'.concat('#'.repeat(hashes)), charset: '0123' }
          const taken = new Set(
            generateUniqueCodes(config, Math.max(0, Math.min(3, 4 ** hashes - count)), seededRandom(seed + 1)),
          )
          fc.pre(count + taken.size <= 4 ** hashes)
          const codes = generateUniqueCodes(config, count, seededRandom(seed), (c) => taken.has(c))
          expect(new Set(codes).size).toBe(count)
          for (const c of codes) expect(taken.has(c)).toBe(false)
        },
      ),
      { numRuns: 200 },
    )
  })
})
