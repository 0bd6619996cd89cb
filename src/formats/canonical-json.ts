import { createHash } from 'node:crypto'

/**
 * JSON with object keys sorted at every level and `undefined` members left out, so two inputs that
 * mean the same thing (however their keys were ordered) give the same text. Dates become ISO strings.
 */
export function canonicalJson(value: unknown): string {
  return JSON.stringify(sorted(value))
}

function sorted(value: unknown): unknown {
  if (Array.isArray(value)) return value.map((item) => (item === undefined ? null : sorted(item)))
  if (value instanceof Date) return value.toISOString()
  if (value === null || typeof value !== 'object') return value
  const out: Record<string, unknown> = {}
  for (const key of Object.keys(value).sort()) {
    const member = (value as Record<string, unknown>)[key]
    if (member !== undefined) out[key] = sorted(member)
  }
  return out
}

/** SHA-256 (hex) of the canonical JSON of a value. */
export function fingerprint(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value), 'utf8').digest('hex')
}
