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

/**
 * Freezes a plain value in place, deeply, so stored entities cannot be changed behind the store's back.
 * A frozen object is still walked: `Object.freeze` is shallow, so a caller's frozen object may hold
 * mutable children. `seen` only guards against cycles.
 */
export function deepFreeze<T>(value: T, seen: WeakSet<object> = new WeakSet()): T {
  if (value === null || typeof value !== 'object' || seen.has(value)) return value
  seen.add(value)
  Object.freeze(value)
  for (const child of Object.values(value as object)) deepFreeze(child, seen)
  return value
}
