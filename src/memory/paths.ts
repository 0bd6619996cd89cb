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
 * The distinct strings a multi-valued path reads (`targets[]`, `products[].id`): at a segment marked
 * `[]`, every element of the array there (a value that is not an array is one element), as
 * PostgreSQL's lax `jsonb_path_query_array` reads them (docs/storage.md#multi-valued-indexes).
 * Elements that are not strings are left out.
 */
export function readElements(value: unknown, path: string): string[] {
  let current: unknown[] = [value]
  for (const segment of path.split('.')) {
    const each = segment.endsWith('[]')
    const name = each ? segment.slice(0, -2) : segment
    const next: unknown[] = []
    for (const v of current) {
      if (v === null || typeof v !== 'object') continue
      const child = (v as Record<string, unknown>)[name]
      if (child === undefined) continue
      if (each && Array.isArray(child)) next.push(...child)
      else next.push(child)
    }
    current = next
  }
  const out = new Set<string>()
  for (const v of current) if (typeof v === 'string') out.add(v)
  return [...out]
}

/**
 * Freezes a value a commit stores, deeply, so stored entities cannot be changed behind the store's
 * back, and only what is new: a subtree that is the very object at the same place in the entity's
 * stored version (`previous`, frozen whole when it was committed) is skipped unwalked, so a commit
 * costs what it changed, not what it kept, and nothing is marked (a store-wide set of frozen objects
 * cost more in the garbage collector than the freezing itself). An object frozen elsewhere is still
 * walked, since `Object.freeze` is shallow, once per commit (`walked`, shared by the commit's values,
 * which also ends cycles). Iterative, so no nesting depth can overflow the stack.
 */
export function freezeNew(value: unknown, previous: unknown, walked: Set<object>): void {
  if (value === null || typeof value !== 'object' || value === previous) return
  const stack: unknown[] = [value, previous]
  while (stack.length > 0) {
    const before = stack.pop()
    const current = stack.pop() as Record<string, unknown>
    if (Object.isFrozen(current)) {
      if (walked.has(current)) continue
      walked.add(current)
    } else Object.freeze(current)
    const old = before !== null && typeof before === 'object' ? (before as Record<string, unknown>) : undefined
    // Indexed for arrays and `for…in` for objects: neither allocates a list of keys per object.
    if (Array.isArray(current)) {
      for (let i = 0; i < current.length; i++) {
        const child: unknown = current[i]
        if (child === null || typeof child !== 'object') continue
        const was = old?.[i]
        if (child !== was) stack.push(child, was)
      }
      continue
    }
    for (const key in current) {
      const child = current[key]
      if (child === null || typeof child !== 'object') continue
      const was = old?.[key]
      if (child !== was) stack.push(child, was)
    }
  }
}

/**
 * A copy of `value` with `by` added to its numeric fields (dotted paths; a missing field counts as 0)
 * and the `set` fields assigned, then the `unset` top-level fields removed.
 * Only the objects on each path are copied: the rest is shared with `value`.
 */
export function withIncrements(
  value: unknown,
  by: Record<string, number>,
  set: Record<string, unknown> = {},
  unset: readonly string[] = [],
): unknown {
  const root: Record<string, unknown> = { ...(value as Record<string, unknown>) }
  // The objects copied so far: created on the first dotted path (most increments are top-level fields).
  let copied: Set<object> | undefined
  const parentOf = (parts: string[]): Record<string, unknown> => {
    copied ??= new Set<object>([root])
    let target = root
    for (const part of parts) {
      const child = target[part]
      let next: Record<string, unknown>
      if (child !== null && typeof child === 'object' && copied.has(child)) next = child as Record<string, unknown>
      else {
        next = child !== null && typeof child === 'object' ? { ...(child as Record<string, unknown>) } : {}
        copied.add(next)
        target[part] = next
      }
      target = next
    }
    return target
  }
  for (const path of Object.keys(by)) {
    const n = by[path] as number
    const parts = path.split('.')
    const last = parts.pop() as string
    const target = parts.length === 0 ? root : parentOf(parts)
    const current = target[last]
    target[last] = (typeof current === 'number' ? current : 0) + n
  }
  for (const path of Object.keys(set)) {
    const parts = path.split('.')
    const last = parts.pop() as string
    const target = parts.length === 0 ? root : parentOf(parts)
    target[last] = set[path]
  }
  for (const field of unset) delete root[field]
  return root
}
