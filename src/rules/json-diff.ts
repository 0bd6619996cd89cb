/**
 * What turns one JSON value into another, small when they share most of their content: a child
 * redemption stores its order as the difference from its parent's (docs/storage.md#what-a-redemption-stores).
 *
 * - `{ v }`: the value itself, replacing what was there;
 * - `{ o, x }`: an object with the keys in `o` changed or added, the keys in `x` removed, the rest kept;
 * - `{ a, n }`: an array of length `n` with the positions in `a` changed or added, the rest kept.
 *
 * Properties whose value is `undefined` count as absent (JSON drops them).
 */
export type JsonDiff =
  | { v: unknown }
  | { o: Record<string, JsonDiff>; x?: string[] }
  | { a: Record<string, JsonDiff>; n: number }

type Plain = Record<string, unknown>

const isPlain = (x: unknown): x is Plain => x !== null && typeof x === 'object' && !Array.isArray(x)

/** An own property (never one inherited from `Object.prototype`). */
const field = (from: Plain, key: string): unknown => (Object.hasOwn(from, key) ? from[key] : undefined)

/** Sets an own property, even one named `__proto__` (user metadata may hold any key). */
function own(target: Plain, key: string, value: unknown): void {
  if (key === '__proto__')
    Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true })
  else target[key] = value
}

/** The difference from `base` to `target`, or `undefined` when they are equal as JSON. */
export function jsonDiff(base: unknown, target: unknown): JsonDiff | undefined {
  // `===`: 0 and -0 are the same JSON.
  if (base === target) return undefined
  if (Array.isArray(base) && Array.isArray(target)) {
    const a: Record<string, JsonDiff> = {}
    let changed = base.length !== target.length
    for (let i = 0; i < target.length; i++) {
      const d = i < base.length ? jsonDiff(base[i], target[i]) : { v: target[i] }
      if (d !== undefined) {
        a[i] = d
        changed = true
      }
    }
    return changed ? { a, n: target.length } : undefined
  }
  if (isPlain(base) && isPlain(target)) {
    const o: Record<string, JsonDiff> = {}
    let changed = false
    for (const [k, t] of Object.entries(target)) {
      if (t === undefined) continue
      const b = field(base, k)
      const d = b === undefined ? { v: t } : jsonDiff(b, t)
      if (d !== undefined) {
        own(o, k, d)
        changed = true
      }
    }
    const x = Object.keys(base).filter((k) => base[k] !== undefined && field(target, k) === undefined)
    if (x.length > 0) return { o, x }
    return changed ? { o } : undefined
  }
  // An array slot holding `undefined` is `null` in JSON.
  return { v: target === undefined ? null : target }
}

/**
 * `base` with `diff` applied: what `jsonDiff(base, target)` was taken from gives `target` back (equal as
 * JSON). What the diff leaves unchanged is shared with `base`, not copied.
 */
export function applyJsonDiff(base: unknown, diff: JsonDiff | undefined): unknown {
  if (diff === undefined) return base
  if ('v' in diff) return diff.v
  if ('a' in diff) {
    const from = Array.isArray(base) ? base : []
    const out: unknown[] = new Array(diff.n)
    for (let i = 0; i < diff.n; i++) {
      const d = diff.a[i]
      out[i] = d === undefined ? from[i] : applyJsonDiff(from[i], d)
    }
    return out
  }
  const from = isPlain(base) ? base : {}
  const removed = new Set(diff.x ?? [])
  const out: Plain = {}
  for (const [k, b] of Object.entries(from)) {
    if (b === undefined || removed.has(k)) continue
    const d = field(diff.o, k) as JsonDiff | undefined
    own(out, k, d === undefined ? b : applyJsonDiff(b, d))
  }
  for (const [k, d] of Object.entries(diff.o)) if (!Object.hasOwn(out, k)) own(out, k, applyJsonDiff(undefined, d))
  return out
}
