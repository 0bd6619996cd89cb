import { EngineError, quote } from '../errors'

/** How large and deep untrusted input may be (docs/limits.md). Every bound is inclusive. */
export interface InputLimits {
  /** Deepest nesting of objects and arrays; a top-level body is depth 1. */
  depth: number
  /** Longest string, and longest object key, in UTF-16 code units (`string.length`). */
  stringLength: number
  /** Most entries in one array. */
  arrayLength: number
  /** Most keys in one object. */
  objectKeys: number
  /** Largest request: every argument of one call together, as the bytes of its UTF-8 JSON text. */
  requestBytes: number
}

/** Far above what a real shop sends, far below what hurts a process. */
export const DEFAULT_LIMITS: Readonly<InputLimits> = Object.freeze({
  depth: 32,
  stringLength: 65_536,
  arrayLength: 10_000,
  objectKeys: 1_000,
  requestBytes: 1_048_576,
})

const LIMIT_NAMES = Object.keys(DEFAULT_LIMITS) as (keyof InputLimits)[]

/** The engine option `limits`: the defaults with the given bounds replaced, each a positive integer. */
export function resolveLimits(given: unknown): InputLimits {
  if (given === undefined) return { ...DEFAULT_LIMITS }
  if (given === null || typeof given !== 'object' || Array.isArray(given)) {
    throw EngineError.invalid('limits', `must be an object with any of ${LIMIT_NAMES.join(', ')}`)
  }
  const out = { ...DEFAULT_LIMITS }
  for (const [name, value] of Object.entries(given)) {
    if (!LIMIT_NAMES.includes(name as keyof InputLimits)) {
      throw EngineError.invalid(`limits.${name}`, `is not a limit (use ${LIMIT_NAMES.join(', ')})`)
    }
    if (!Number.isSafeInteger(value) || (value as number) < 1) {
      throw EngineError.invalid(`limits.${name}`, 'must be a positive integer')
    }
    out[name as keyof InputLimits] = value as number
  }
  return out
}

/** A node still to visit: its parent chain names the path and finds cycles without a visited set. */
interface Node {
  value: unknown
  parent: Node | undefined
  key: string | number
  depth: number
}

/**
 * Refuses what JSON cannot carry and what exceeds the limits, before any schema sees the input:
 * `NaN`, `±Infinity`, `undefined` as an array entry (a key set to it is absent), functions, symbols, bigints, `Date`s and
 * other class instances, cycles. Iterative, so input nested 100,000 deep is refused, not a stack
 * overflow; and bounded, since every node visited adds to `requestBytes`. `args` are the arguments
 * of one call; paths are relative to each argument, like the schemas' (an argument itself is
 * `arguments[i]`). `URLSearchParams` (the form bodies of the token endpoints) count as their fields.
 */
export function checkBounds(args: readonly unknown[], limits: InputLimits): void {
  let bytes = 0
  const stack: Node[] = []
  for (let i = args.length - 1; i >= 0; i--) {
    if (args[i] !== undefined) stack.push({ value: args[i], parent: undefined, key: i, depth: 0 })
  }
  const add = (node: Node, n: number) => {
    bytes += n
    if (bytes > limits.requestBytes) {
      tooLarge(node, `makes the request larger than ${limits.requestBytes} bytes of JSON (limit requestBytes)`)
    }
  }
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    const value = node.value
    switch (typeof value) {
      case 'string':
        if (value.length > limits.stringLength) {
          tooLarge(node, `is longer than ${limits.stringLength} characters (limit stringLength): ${quote(value)}`)
        }
        add(node, Buffer.byteLength(value, 'utf8') + 2)
        continue
      case 'number':
        if (!Number.isFinite(value)) fail(node, `must be a finite number, not ${value}`)
        add(node, String(value).length)
        continue
      case 'boolean':
        add(node, 5)
        continue
      case 'undefined':
        fail(node, 'is undefined, which JSON cannot carry: leave the key out')
        break
      case 'bigint':
        fail(node, 'is a bigint, which JSON cannot carry: pass a number')
        break
      case 'symbol':
      case 'function':
        fail(node, `is a ${typeof value}, not a JSON value`)
        break
      case 'object': {
        if (value === null) {
          add(node, 4)
          continue
        }
        const depth = node.depth + 1
        if (depth > limits.depth) tooLarge(node, `nests deeper than ${limits.depth} levels (limit depth)`)
        for (let up = node.parent; up !== undefined; up = up.parent) {
          if (up.value === value) fail(node, 'refers back to an object that contains it (a cycle)')
        }
        const entries = entriesOf(node, value)
        const isArray = Array.isArray(value)
        if (isArray && entries.length > limits.arrayLength) {
          tooLarge(node, `has more than ${limits.arrayLength} entries (limit arrayLength)`)
        }
        if (!isArray && entries.length > limits.objectKeys) {
          tooLarge(node, `has more than ${limits.objectKeys} keys (limit objectKeys)`)
        }
        add(node, 2 + Math.max(0, entries.length - 1))
        for (let i = entries.length - 1; i >= 0; i--) {
          const [key, child] = entries[i] as [string | number, unknown]
          // A key set to `undefined` is absent (the parse boundary drops it, as JSON would); an array
          // entry has no such reading and is refused below.
          if (child === undefined && !isArray) continue
          const childNode = { value: child, parent: node, key, depth }
          if (typeof key === 'string') {
            if (key.length > limits.stringLength) {
              tooLarge(
                node,
                `has a key longer than ${limits.stringLength} characters (limit stringLength): ${quote(key)}`,
              )
            }
            add(childNode, Buffer.byteLength(key, 'utf8') + 3)
          }
          stack.push(childNode)
        }
        continue
      }
    }
  }
}

function entriesOf(node: Node, value: object): [string | number, unknown][] {
  if (Array.isArray(value)) {
    if (Object.getPrototypeOf(value) !== Array.prototype) fail(node, 'must be a plain array')
    return Array.from(value, (item, i) => [i, item])
  }
  if (value instanceof URLSearchParams) return Array.from(value)
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) {
    const name = typeof proto?.constructor?.name === 'string' ? proto.constructor.name : 'object'
    if (value instanceof Date) fail(node, 'is a Date, which JSON cannot carry: pass an ISO 8601 string')
    fail(node, `is a ${quote(name, 40)} instance, not a plain JSON object`)
  }
  if (Object.getOwnPropertySymbols(value).length > 0) fail(node, 'has symbol keys, which JSON cannot carry')
  return Object.entries(value)
}

function pathOf(node: Node): string {
  const keys: (string | number)[] = []
  let top = node
  for (; top.parent !== undefined; top = top.parent) keys.push(top.key)
  if (keys.length === 0) return `arguments[${top.key}]`
  let out = ''
  // Keys are named by a prefix too: a path of long keys would otherwise repeat them in full.
  for (const key of keys.reverse()) {
    out += typeof key === 'number' ? `[${key}]` : out === '' ? quote(key) : `.${quote(key)}`
  }
  return out
}

/** Non-JSON values are `invalid_payload`; values over a limit `input_too_large` (a host may answer 413). */
function fail(node: Node, problem: string, key = 'invalid_payload'): never {
  throw EngineError.invalid(pathOf(node), problem, key)
}

function tooLarge(node: Node, problem: string): never {
  fail(node, problem, 'input_too_large')
}
