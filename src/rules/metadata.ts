import type { Metadata } from '../model/common'
import type { MetadataPropertyDefinition, MetadataSchema } from '../model/metadata-schema'
import { parseInstant } from './zoned-calendar'

/** The `related_object` values the service interface names; any other non-empty value is a custom schema. */
export const STANDARD_RELATED_OBJECTS = [
  'campaign',
  'customer',
  'earning_rule',
  'loyalty_tier',
  'order',
  'order_item',
  'product',
  'promotion_tier',
  'publication',
  'redemption',
  'reward',
  'voucher',
] as const

export const METADATA_TYPES = [
  'string',
  'number',
  'boolean',
  'date',
  'datetime',
  'object',
  'geopoint',
  'image_url',
] as const satisfies readonly MetadataPropertyDefinition['type'][]

export type MetadataType = MetadataPropertyDefinition['type']

export interface MetadataCheck {
  /** The metadata to store and return. */
  metadata: Metadata
  /** The first violation, naming the property (`metadata.size`, `metadata.tags[1]`). */
  error?: { path: string; message: string }
}

/**
 * Checks metadata against its object type's schema (none: anything goes). Declared properties must
 * have their type (each element when `array`), one of `eq`, the `exactLength`; a property with
 * `optional: false` must be present. `null` counts as absent. Properties the schema does not declare
 * are refused when `allow_defined_only` is true, and otherwise stored and returned unchanged: the
 * spec's "unknown properties are omitted from the response" is about the schema's own listing, and
 * dropping a user's data silently is never right. Without a schema, metadata is kept as sent.
 */
export function checkMetadata(schema: MetadataSchema | undefined, metadata: Metadata, path: string): MetadataCheck {
  if (!schema) return { metadata }
  for (const [name, definition] of Object.entries(schema.properties)) {
    const problem = checkProperty(definition, metadata[name])
    if (problem) return { metadata, error: { path: `${path}.${name}${problem.at}`, message: problem.message } }
  }
  if (schema.allow_defined_only === true) {
    for (const name of Object.keys(metadata)) {
      if (!Object.hasOwn(schema.properties, name)) {
        return {
          metadata,
          error: {
            path: `${path}.${name}`,
            message: `is not defined in the ${schema.related_object} metadata schema, which allows defined properties only`,
          },
        }
      }
    }
  }
  return { metadata }
}

type Problem = { at: string; message: string }

function checkProperty(definition: MetadataPropertyDefinition, value: unknown): Problem | undefined {
  if (value === undefined || value === null) {
    return definition.optional ? undefined : { at: '', message: 'is required by the metadata schema' }
  }
  if (!definition.array) return checkValue(definition, value, '')
  if (!Array.isArray(value))
    return { at: '', message: `must be an array whose items are each ${describeType(definition.type)}` }
  for (const [i, item] of value.entries()) {
    const problem = checkValue(definition, item, `[${i}]`)
    if (problem) return problem
  }
  return undefined
}

function checkValue(definition: MetadataPropertyDefinition, value: unknown, at: string): Problem | undefined {
  if (!hasType(definition.type, value)) return { at, message: `must be ${describeType(definition.type)}` }
  if (definition.eq !== undefined && !definition.eq.some((allowed) => sameValue(allowed, value))) {
    return { at, message: `must be one of ${JSON.stringify(definition.eq)}` }
  }
  if (definition.exactLength !== undefined && typeof value === 'string' && value.length !== definition.exactLength) {
    return { at, message: `must be exactly ${definition.exactLength} characters long` }
  }
  return undefined
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})$/

/** Whether a value has a metadata type. Exported for schema definitions (`eq` values are checked too). */
export function hasType(type: MetadataType, value: unknown): boolean {
  switch (type) {
    case 'string':
      return typeof value === 'string'
    case 'number':
      return typeof value === 'number' && Number.isFinite(value)
    case 'boolean':
      return typeof value === 'boolean'
    case 'date':
      return typeof value === 'string' && isCalendarDate(value)
    case 'datetime':
      return typeof value === 'string' && DATE_TIME.test(value) && !Number.isNaN(parseInstant(value))
    case 'object':
      return isPlainObject(value)
    case 'geopoint':
      return (
        isPlainObject(value) &&
        inRange(value.latitude, -90, 90) &&
        inRange(value.longitude, -180, 180) &&
        Object.keys(value).length === 2
      )
    case 'image_url':
      return typeof value === 'string' && isHttpUrl(value)
    default: {
      const _never: never = type
      return _never
    }
  }
}

function describeType(type: MetadataType): string {
  switch (type) {
    case 'string':
      return 'a string'
    case 'number':
      return 'a number'
    case 'boolean':
      return 'a boolean'
    case 'date':
      return 'a date (YYYY-MM-DD)'
    case 'datetime':
      return 'an ISO 8601 date-time'
    case 'object':
      return 'an object'
    case 'geopoint':
      return 'a geopoint {latitude, longitude}'
    case 'image_url':
      return 'an http(s) image URL'
    default: {
      const _never: never = type
      return _never
    }
  }
}

function isCalendarDate(value: string): boolean {
  const m = DATE.exec(value)
  if (!m) return false
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const date = new Date(Date.UTC(y, mo - 1, d))
  return date.getUTCFullYear() === y && date.getUTCMonth() === mo - 1 && date.getUTCDate() === d
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function inRange(value: unknown, min: number, max: number): boolean {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

/** `eq` compares scalars by value and objects (geopoints) by their JSON. */
function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true
  return typeof a === 'object' && a !== null && typeof b === 'object' && b !== null && stable(a) === stable(b)
}

function stable(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(stable).join(',')}]`
  if (isPlainObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${stable(value[k])}`)
      .join(',')}}`
  }
  return JSON.stringify(value)
}
