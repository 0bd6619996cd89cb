import { describe, expect, it } from 'vitest'
import { EngineError } from '../../src/errors'
import { checkBounds, DEFAULT_LIMITS, type InputLimits, resolveLimits } from '../../src/schema/input-limits'

function refusal(args: unknown[], limits: InputLimits = DEFAULT_LIMITS): EngineError {
  try {
    checkBounds(args, limits)
  } catch (e) {
    expect(e).toBeInstanceOf(EngineError)
    return e as EngineError
  }
  throw new Error('expected a refusal')
}

function nested(depth: number): unknown {
  let value: unknown = 'leaf'
  for (let i = 0; i < depth; i++) value = { a: value }
  return value
}

describe('checkBounds', () => {
  it('takes JSON values within the limits, and URLSearchParams by their fields', () => {
    const body = { name: 'x', n: -0, list: [1, 'two', null, true, { deep: [[]] }], metadata: nested(30) }
    expect(() => checkBounds(['id', body, undefined], DEFAULT_LIMITS)).not.toThrow()
    expect(() => checkBounds([new URLSearchParams({ grant_type: 'client_credentials' })], DEFAULT_LIMITS)).not.toThrow()
    expect(() => checkBounds([Object.create(null)], DEFAULT_LIMITS)).not.toThrow()
    // The same object twice is not a cycle (JSON writes it twice).
    const shared = { a: 1 }
    expect(() => checkBounds([{ x: shared, y: [shared, shared] }], DEFAULT_LIMITS)).not.toThrow()
  })

  it('refuses 100,000 levels of nesting without overflowing the stack, naming where it went too deep', () => {
    const e = refusal([{ metadata: nested(100_000) }])
    expect(e).toMatchObject({ code: 400, key: 'input_too_large' })
    expect(e.path).toBe(`metadata${'.a'.repeat(31)}`)
    expect(e.details).toContain('nests deeper than 32 levels (limit depth)')
    let list: unknown = []
    for (let i = 0; i < 100_000; i++) list = [list]
    expect(refusal([list]).key).toBe('input_too_large')
  })

  it('counts depth from the argument: 32 levels pass, 33 do not', () => {
    expect(() => checkBounds([nested(32)], DEFAULT_LIMITS)).not.toThrow()
    expect(refusal([nested(33)]).key).toBe('input_too_large')
  })

  it.each([
    ['NaN', Number.NaN, 'must be a finite number, not NaN'],
    ['Infinity', Number.POSITIVE_INFINITY, 'must be a finite number, not Infinity'],
    ['-Infinity', Number.NEGATIVE_INFINITY, 'must be a finite number, not -Infinity'],
    ['a function', () => 1, 'is a function'],
    ['a symbol', Symbol('s'), 'is a symbol'],
    ['a bigint', 10n, 'is a bigint'],
    ['a Date', new Date(0), 'is a Date, which JSON cannot carry: pass an ISO 8601 string'],
    ['a Map', new Map(), 'is a Map instance'],
    ['a class instance', new (class Money {})(), 'is a Money instance'],
    ['a typed array', new Uint8Array(2), 'is a Uint8Array instance'],
  ])('refuses %s anywhere, naming the field', (_name, bad, said) => {
    const e = refusal(['camp_1', { metadata: { list: [1, { bad }] } }])
    expect(e).toMatchObject({ code: 400, key: 'invalid_payload', path: 'metadata.list[1].bad' })
    expect(e.details).toContain(said)
  })

  it('takes a key set to undefined as absent, and refuses undefined as an array entry', () => {
    expect(() => checkBounds([{ metadata: { a: undefined } }], DEFAULT_LIMITS)).not.toThrow()
    const e = refusal(['camp_1', { metadata: { list: [1, undefined] } }])
    expect(e).toMatchObject({ code: 400, key: 'invalid_payload', path: 'metadata.list[1]' })
    expect(e.details).toContain('is undefined')
  })

  it('names long keys in a path by their prefix', () => {
    const e = refusal([{ ['k'.repeat(300)]: { x: Number.NaN } }])
    expect(e.path).toBe(`${'k'.repeat(100)}… (200 more characters).x`)
  })

  it('names an argument that is itself bad by its position', () => {
    expect(refusal(['ok', Number.NaN]).path).toBe('arguments[1]')
  })

  it('refuses symbol keys, sparse arrays and cycles', () => {
    expect(refusal([{ [Symbol('k')]: 1 }]).details).toContain('symbol keys')
    // biome-ignore lint/suspicious/noSparseArray: the hole is the point
    expect(refusal([{ list: [1, , 3] }]).path).toBe('list[1]')
    const cycle: Record<string, unknown> = { a: { b: {} } }
    ;(cycle.a as { b: Record<string, unknown> }).b.c = cycle
    const e = refusal([cycle])
    expect(e).toMatchObject({ key: 'invalid_payload', path: 'a.b.c' })
    expect(e.details).toContain('cycle')
  })

  it('bounds strings, keys, arrays, objects and the whole request, quoting only a prefix', () => {
    const long = 'x'.repeat(65_537)
    const e = refusal([{ name: long }])
    expect(e).toMatchObject({ key: 'input_too_large', path: 'name' })
    expect(e.details.length).toBeLessThan(250)
    expect(e.details).toContain('(65437 more characters)')
    expect(() => checkBounds([{ name: 'x'.repeat(65_536) }], DEFAULT_LIMITS)).not.toThrow()
    const key = refusal([{ meta: { [long]: 1 } }])
    expect(key).toMatchObject({ key: 'input_too_large', path: 'meta' })
    expect(key.details).toContain('has a key longer than 65536')
    expect(key.details.length).toBeLessThan(250)
    expect(refusal([{ list: new Array(10_001).fill(0) }]).details).toContain('more than 10000 entries')
    expect(() => checkBounds([{ list: new Array(10_000).fill(0) }], DEFAULT_LIMITS)).not.toThrow()
    const keys = Object.fromEntries(Array.from({ length: 1_001 }, (_, i) => [`k${i}`, i]))
    expect(refusal([keys]).details).toContain('more than 1000 keys')
    const big = { parts: Array.from({ length: 20 }, () => 'y'.repeat(60_000)) }
    const size = refusal([big])
    expect(size).toMatchObject({ key: 'input_too_large', path: 'parts[17]' })
    expect(size.details).toContain('larger than 1048576 bytes')
  })

  it('counts the request across arguments and in UTF-8 bytes', () => {
    const limits = { ...DEFAULT_LIMITS, requestBytes: 100 }
    expect(() => checkBounds(['é'.repeat(40)], limits)).not.toThrow()
    expect(refusal(['é'.repeat(50)], limits).key).toBe('input_too_large')
    expect(refusal(['a'.repeat(60), 'b'.repeat(60)], limits).path).toBe('arguments[1]')
  })

  it('reports the first fault depth first, in key order, and counts numbers as their JSON text', () => {
    const body = { a: [1, { b: Number.NaN }], c: () => 0, d: { e: 10n } }
    expect(refusal([body]).path).toBe('a[1].b')
    expect(refusal([{ a: [1, 2, undefined], c: Number.POSITIVE_INFINITY }]).path).toBe('a[2]')
    // An array of numbers counts exactly its JSON text: the last digit over the limit is refused.
    const numbers = [-12345678901, 0.5, 1e21, -0, 9007199254740991]
    const bytes = JSON.stringify(numbers).length
    expect(() => checkBounds([numbers], { ...DEFAULT_LIMITS, requestBytes: bytes })).not.toThrow()
    expect(refusal([numbers], { ...DEFAULT_LIMITS, requestBytes: bytes - 1 }).path).toBe('[4]')
  })

  it('stops early on shared references that would multiply the work', () => {
    let value: unknown = 'leaf'
    for (let i = 0; i < 30; i++) value = [value, value]
    expect(refusal([value]).key).toBe('input_too_large')
  })
})

describe('resolveLimits', () => {
  it('replaces only the limits given', () => {
    expect(resolveLimits(undefined)).toEqual(DEFAULT_LIMITS)
    expect(resolveLimits({ depth: 4 })).toEqual({ ...DEFAULT_LIMITS, depth: 4 })
  })

  it.each([
    [null, 'limits'],
    [[], 'limits'],
    [{ depth: 0 }, 'limits.depth'],
    [{ depth: 1.5 }, 'limits.depth'],
    [{ stringLength: Number.POSITIVE_INFINITY }, 'limits.stringLength'],
    [{ arrayLength: '10' }, 'limits.arrayLength'],
    [{ maxDepth: 3 }, 'limits.maxDepth'],
  ])('refuses %j naming %s', (given, path) => {
    expect(() => resolveLimits(given)).toThrow(EngineError)
    try {
      resolveLimits(given)
    } catch (e) {
      expect((e as EngineError).path).toBe(path)
    }
  })
})
