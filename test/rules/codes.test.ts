import { describe, expect, it } from 'vitest'
import { EngineError } from '../../src/errors'
import { seededRandom } from '../../src/ids'
import { codeSpace, generateCode, generateUniqueCodes, resolveCodeConfig } from '../../src/rules/codes'

describe('generateCode', () => {
  it('replaces each # of a pattern with one charset character', () => {
    const random = seededRandom(1)
    for (let i = 0; i < 50; i++)
      expect(generateCode({ pattern: 'SUMMER-####' }, random)).toMatch(/^SUMMER-[0-9A-Za-z]{4}$/)
  })

  it('draws length characters of the charset, with prefix and postfix around', () => {
    const code = generateCode({ length: 6, charset: 'AB', prefix: 'X-', postfix: '-Y' }, seededRandom(7))
    expect(code).toMatch(/^X-[AB]{6}-Y$/)
  })

  it('defaults to 8 alphanumeric characters', () => {
    expect(generateCode({}, seededRandom(3))).toMatch(/^[0-9A-Za-z]{8}$/)
  })

  it('is reproducible with a seeded random source', () => {
    const a = generateCode({ pattern: '##-##' }, seededRandom(42))
    expect(generateCode({ pattern: '##-##' }, seededRandom(42))).toBe(a)
  })

  it('maps the random source onto the charset from its first to its last character', () => {
    expect(generateCode({ length: 3, charset: 'abc' }, () => 0)).toBe('aaa')
    expect(generateCode({ length: 3, charset: 'abc' }, () => 0.9999999)).toBe('ccc')
    expect(generateCode({ pattern: 'Q#', charset: '0123456789' }, () => 0.5)).toBe('Q5')
  })

  it('rejects a pattern without # and an empty charset, naming the field', () => {
    expect(() => generateCode({ pattern: 'SUMMER' }, seededRandom(1))).toThrowError(EngineError)
    expect(() => generateCode({ pattern: 'SUMMER' }, seededRandom(1))).toThrow(
      expect.objectContaining({ code: 400, path: 'code_config.pattern' }),
    )
    expect(() => generateCode({ charset: '' }, seededRandom(1))).toThrow(
      expect.objectContaining({ path: 'code_config.charset' }),
    )
    expect(() => generateCode({ length: 0 }, seededRandom(1), 'voucher.code_config')).toThrow(
      expect.objectContaining({ path: 'voucher.code_config.length' }),
    )
  })
})

describe('resolveCodeConfig', () => {
  it('reports length and charset; a pattern decides the length', () => {
    expect(resolveCodeConfig({ pattern: 'AB-###', length: 10, prefix: 'P' })).toEqual({
      pattern: 'AB-###',
      length: 3,
      charset: '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz',
      prefix: 'P',
    })
  })

  it('refuses a config making codes longer than 255 characters, prefix and postfix included', () => {
    expect(resolveCodeConfig({ length: 249, prefix: 'AB-', postfix: '-YZ' }).length).toBe(249)
    for (const [config, path] of [
      [{ length: 42_277_723 }, 'code_config.length'],
      [{ length: 250, prefix: 'AB-', postfix: '-YZ' }, 'code_config.length'],
      [{ pattern: '#'.repeat(256) }, 'code_config.pattern'],
      [{ pattern: '##', prefix: 'x'.repeat(254) }, 'code_config.pattern'],
    ] as const) {
      expect(() => resolveCodeConfig(config)).toThrow(EngineError)
      expect(() => resolveCodeConfig(config)).toThrow(expect.objectContaining({ path }))
    }
  })
})

describe('generateUniqueCodes', () => {
  it('gives 100 distinct codes for SUMMER-####', () => {
    const codes = generateUniqueCodes({ pattern: 'SUMMER-####' }, 100, seededRandom(5))
    expect(codes).toHaveLength(100)
    expect(new Set(codes).size).toBe(100)
    for (const c of codes) expect(c).toMatch(/^SUMMER-[0-9A-Za-z]{4}$/)
  })

  it('fills a small space exactly, avoiding taken codes', () => {
    const taken = new Set(['0', '1'])
    const codes = generateUniqueCodes({ pattern: '#', charset: '0123' }, 2, seededRandom(9), (c) => taken.has(c))
    expect([...codes].sort()).toEqual(['2', '3'])
  })

  it('refuses more codes than the pattern space holds before drawing', () => {
    expect(codeSpace({ pattern: '##', charset: '01' })).toBe(4)
    expect(() => generateUniqueCodes({ pattern: '##', charset: '01' }, 5, seededRandom(1))).toThrow(
      expect.objectContaining({ code: 400, path: 'code_config', details: expect.stringContaining('only 4 distinct') }),
    )
  })

  it('fails clearly after bounded attempts when taken codes exhaust the space', () => {
    let draws = 0
    const random = () => {
      draws++
      return 0.1
    }
    expect(() => generateUniqueCodes({ pattern: '##', charset: '01' }, 1, random, () => true)).toThrow(
      expect.objectContaining({ details: expect.stringContaining('nearly exhausted') }),
    )
    expect(draws).toBe(2 * (1 * 20 + 100))
  })

  it('caps the space of huge configs at the largest safe integer', () => {
    expect(codeSpace({ length: 40 })).toBe(Number.MAX_SAFE_INTEGER)
    expect(generateUniqueCodes({ length: 40 }, 0, seededRandom(1))).toEqual([])
  })
})
