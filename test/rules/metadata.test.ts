import { describe, expect, it } from 'vitest'
import type { MetadataPropertyDefinition, MetadataSchema } from '../../src/model/metadata-schema'
import { checkMetadata, hasType } from '../../src/rules/metadata'

function schema(
  properties: Record<string, Partial<MetadataPropertyDefinition> & Pick<MetadataPropertyDefinition, 'type'>>,
  allowDefinedOnly = false,
): MetadataSchema {
  const full: Record<string, MetadataPropertyDefinition> = {}
  for (const [k, p] of Object.entries(properties)) full[k] = { array: false, optional: true, objectType: null, ...p }
  return {
    id: 'ms_1',
    related_object: 'product',
    properties: full,
    allow_defined_only: allowDefinedOnly,
    created_at: '2026-01-01T00:00:00.000Z',
    updated_at: null,
    object: 'metadata_schema',
  }
}

describe('checkMetadata', () => {
  it('accepts anything without a schema', () => {
    expect(checkMetadata(undefined, { any: [1, 'x'] }, 'metadata')).toEqual({ metadata: { any: [1, 'x'] } })
  })

  it('checks the type of each declared property, naming it', () => {
    const s = schema({ size: { type: 'number' } })
    expect(checkMetadata(s, { size: 42 }, 'metadata')).toEqual({ metadata: { size: 42 } })
    expect(checkMetadata(s, { size: '42' }, 'metadata').error).toEqual({
      path: 'metadata.size',
      message: 'must be a number',
    })
  })

  it('checks every type', () => {
    const s = schema({
      s: { type: 'string' },
      n: { type: 'number' },
      b: { type: 'boolean' },
      d: { type: 'date' },
      dt: { type: 'datetime' },
      o: { type: 'object' },
      g: { type: 'geopoint' },
      i: { type: 'image_url' },
    })
    const good = {
      s: 'x',
      n: 1.5,
      b: false,
      d: '2026-02-28',
      dt: '2026-02-28T10:00:00Z',
      o: { a: 1 },
      g: { latitude: 52.2, longitude: 21 },
      i: 'https://cdn.example.com/a.png',
    }
    expect(checkMetadata(s, good, 'metadata').error).toBeUndefined()
    const bad: [string, unknown, string][] = [
      ['s', 1, 'must be a string'],
      ['n', Number.NaN, 'must be a number'],
      ['b', 'true', 'must be a boolean'],
      ['d', '2026-02-30', 'must be a date (YYYY-MM-DD)'],
      ['dt', '2026-02-28', 'must be an ISO 8601 date-time'],
      ['dt', '2026-02-30T10:00:00Z', 'must be an ISO 8601 date-time'],
      ['o', [1], 'must be an object'],
      ['g', { latitude: 91, longitude: 0 }, 'must be a geopoint {latitude, longitude}'],
      ['i', 'ftp://x/y.png', 'must be an http(s) image URL'],
    ]
    for (const [name, value, message] of bad) {
      expect(checkMetadata(s, { ...good, [name]: value }, 'metadata').error).toEqual({
        path: `metadata.${name}`,
        message,
      })
    }
  })

  it('requires a non-optional property; null counts as absent', () => {
    const s = schema({ size: { type: 'string', optional: false } })
    expect(checkMetadata(s, {}, 'metadata').error).toEqual({
      path: 'metadata.size',
      message: 'is required by the metadata schema',
    })
    expect(checkMetadata(s, { size: null }, 'customer.metadata').error?.path).toBe('customer.metadata.size')
    expect(checkMetadata(schema({ size: { type: 'string' } }), { size: null }, 'metadata').error).toBeUndefined()
  })

  it('checks arrays element by element', () => {
    const s = schema({ tags: { type: 'string', array: true } })
    expect(checkMetadata(s, { tags: ['a', 'b'] }, 'metadata').error).toBeUndefined()
    expect(checkMetadata(s, { tags: 'a' }, 'metadata').error).toEqual({
      path: 'metadata.tags',
      message: 'must be an array whose items are each a string',
    })
    expect(checkMetadata(s, { tags: ['a', 2] }, 'metadata').error).toEqual({
      path: 'metadata.tags[1]',
      message: 'must be a string',
    })
  })

  it('enforces eq and exactLength', () => {
    const s = schema({
      size: { type: 'string', eq: ['S', 'M', 'L'] },
      sku: { type: 'string', exactLength: 4 },
      colors: { type: 'string', array: true, eq: ['red', 'blue'] },
    })
    expect(checkMetadata(s, { size: 'M', sku: 'AB12', colors: ['red'] }, 'metadata').error).toBeUndefined()
    expect(checkMetadata(s, { size: 'XL' }, 'metadata').error).toEqual({
      path: 'metadata.size',
      message: 'must be one of ["S","M","L"]',
    })
    expect(checkMetadata(s, { sku: 'AB123' }, 'metadata').error).toEqual({
      path: 'metadata.sku',
      message: 'must be exactly 4 characters long',
    })
    expect(checkMetadata(s, { colors: ['red', 'green'] }, 'metadata').error?.path).toBe('metadata.colors[1]')
  })

  it('keeps undeclared properties, and refuses them with allow_defined_only', () => {
    expect(checkMetadata(schema({ a: { type: 'string' } }), { a: 'x', extra: 1 }, 'metadata')).toEqual({
      metadata: { a: 'x', extra: 1 },
    })
    expect(checkMetadata(undefined, { a: 'x', extra: 1 }, 'metadata')).toEqual({ metadata: { a: 'x', extra: 1 } })
    expect(checkMetadata(schema({ a: { type: 'string' } }, true), { a: 'x', extra: 1 }, 'metadata').error).toEqual({
      path: 'metadata.extra',
      message: 'is not defined in the product metadata schema, which allows defined properties only',
    })
  })
})

describe('hasType', () => {
  it('accepts offsets in date-times and refuses extra geopoint keys', () => {
    expect(hasType('datetime', '2026-01-15T10:00:00.123+01:00')).toBe(true)
    expect(hasType('geopoint', { latitude: 0, longitude: 0, altitude: 3 })).toBe(false)
    expect(hasType('date', '2024-02-29')).toBe(true)
    expect(hasType('date', '2025-02-29')).toBe(false)
  })
})
