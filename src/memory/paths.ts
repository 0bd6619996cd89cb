/** Reads a dotted path (`redemption.quantity`) from a plain object. */
export function readPath(value: unknown, path: string): unknown {
  if (!path.includes('.')) return (value as Record<string, unknown> | null | undefined)?.[path]
  let current: unknown = value
  for (const part of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined
    current = (current as Record<string, unknown>)[part]
  }
  return current
}

/** Freezes a plain value in place, deeply, so stored entities cannot be changed behind the store's back. */
export function deepFreeze<T>(value: T): T {
  if (value === null || typeof value !== 'object' || Object.isFrozen(value)) return value
  Object.freeze(value)
  for (const child of Object.values(value as object)) deepFreeze(child)
  return value
}
