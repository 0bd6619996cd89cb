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

/** A node of the input: its parent chain names the path and finds cycles without a visited set. */
interface Node {
  value: unknown
  parent: Node | undefined
  key: string | number
  depth: number
}

/** An object or array being walked: its keys (none for an array, walked by index) and the next to visit. */
interface Frame extends Node {
  parent: Frame | undefined
  keys: readonly string[] | undefined
  /** URLSearchParams' fields, as entries (a key may repeat). */
  entries: readonly [string, unknown][] | undefined
  length: number
  next: number
}

/**
 * Refuses what JSON cannot carry and what exceeds the limits, before any schema sees the input:
 * `NaN`, `±Infinity`, `undefined` as an array entry (a key set to it is absent), functions, symbols, bigints, `Date`s and
 * other class instances, cycles. Iterative, so input nested 100,000 deep is refused, not a stack
 * overflow; and bounded, since every node visited adds to `requestBytes`. `args` are the arguments
 * of one call; paths are relative to each argument, like the schemas' (an argument itself is
 * `arguments[i]`). `URLSearchParams` (the form bodies of the token endpoints) count as their fields.
 *
 * Every call of the engine runs it on its whole input, so it allocates only per object or array
 * (a frame), never per key or scalar: a node for a path is made only to report a fault. Nodes are
 * visited depth first in key order, and an object's keys are counted when it is reached, so the
 * first fault reported is the same whatever the walk keeps in memory.
 */
export function checkBounds(args: readonly unknown[], limits: InputLimits): void {
  const walk: Walk = { limits, bytes: 0, stack: [] }
  for (let i = 0; i < args.length; i++) {
    if (args[i] === undefined) continue
    visit(walk, args[i], undefined, i, 0)
    const { stack } = walk
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as Frame
      if (frame.next >= frame.length) {
        stack.pop()
        continue
      }
      const at = frame.next++
      if (frame.keys !== undefined) {
        const key = frame.keys[at] as string
        const child = (frame.value as Record<string, unknown>)[key]
        if (child !== undefined) visit(walk, child, frame, key, frame.depth + 1)
      } else if (frame.entries !== undefined) {
        const [key, child] = frame.entries[at] as [string, string]
        visit(walk, child, frame, key, frame.depth + 1)
      } else {
        visit(walk, (frame.value as unknown[])[at], frame, at, frame.depth + 1)
      }
    }
  }
}

/** One call's walk: the bytes counted so far and the objects being walked, innermost last. */
interface Walk {
  limits: InputLimits
  bytes: number
  stack: Frame[]
}

function visit(walk: Walk, value: unknown, parent: Frame | undefined, key: string | number, depth: number): void {
  const { limits } = walk
  switch (typeof value) {
    case 'string':
      if (value.length > limits.stringLength) {
        tooLarge(
          nodeOf(value, parent, key, depth),
          `is longer than ${limits.stringLength} characters (limit stringLength): ${quote(value)}`,
        )
      }
      add(walk, Buffer.byteLength(value, 'utf8') + 2, value, parent, key, depth)
      return
    case 'number':
      if (!Number.isFinite(value)) fail(nodeOf(value, parent, key, depth), `must be a finite number, not ${value}`)
      add(walk, numberLength(value), value, parent, key, depth)
      return
    case 'boolean':
      add(walk, 5, value, parent, key, depth)
      return
    case 'undefined':
      fail(nodeOf(value, parent, key, depth), 'is undefined, which JSON cannot carry: leave the key out')
      break
    case 'bigint':
      fail(nodeOf(value, parent, key, depth), 'is a bigint, which JSON cannot carry: pass a number')
      break
    case 'symbol':
    case 'function':
      fail(nodeOf(value, parent, key, depth), `is a ${typeof value}, not a JSON value`)
      break
    case 'object':
      if (value === null) add(walk, 4, value, parent, key, depth)
      // The one value of an argument's first level that is not JSON: a per-call option's signal
      // (`asyncActions.runPending`), which the options' schema checks (src/schema/arguments.ts).
      else if (depth === 1 && key === 'signal' && value instanceof AbortSignal) return
      else walk.stack.push(open(walk, value, parent, key, depth))
      return
  }
}

function add(walk: Walk, n: number, value: unknown, parent: Frame | undefined, key: string | number, depth: number) {
  walk.bytes += n
  if (walk.bytes > walk.limits.requestBytes) {
    tooLarge(
      nodeOf(value, parent, key, depth),
      `makes the request larger than ${walk.limits.requestBytes} bytes of JSON (limit requestBytes)`,
    )
  }
}

/** Checks an object or array as it is reached, counts it and its keys, and returns its frame. */
function open(walk: Walk, value: object, parent: Frame | undefined, key: string | number, depth: number): Frame {
  const { limits } = walk
  const frame: Frame = { value, parent, key, depth, keys: undefined, entries: undefined, length: 0, next: 0 }
  if (depth + 1 > limits.depth) tooLarge(frame, `nests deeper than ${limits.depth} levels (limit depth)`)
  for (let up = parent; up !== undefined; up = up.parent) {
    if (up.value === value) fail(frame, 'refers back to an object that contains it (a cycle)')
  }
  const isArray = Array.isArray(value)
  if (isArray) {
    if (Object.getPrototypeOf(value) !== Array.prototype) fail(frame, 'must be a plain array')
    frame.length = value.length
  } else if (value instanceof URLSearchParams) {
    frame.entries = Array.from(value)
    frame.length = frame.entries.length
  } else {
    checkPlainObject(frame, value)
    frame.keys = Object.keys(value)
    frame.length = frame.keys.length
  }
  if (isArray && frame.length > limits.arrayLength) {
    tooLarge(frame, `has more than ${limits.arrayLength} entries (limit arrayLength)`)
  }
  if (!isArray && frame.length > limits.objectKeys) {
    tooLarge(frame, `has more than ${limits.objectKeys} keys (limit objectKeys)`)
  }
  add(walk, 2 + Math.max(0, frame.length - 1), value, parent, key, depth)
  if (isArray) return frame
  // Keys count when their object is reached, last to first, each with the child it names.
  for (let i = frame.length - 1; i >= 0; i--) {
    let k: string
    let child: unknown
    if (frame.keys !== undefined) {
      k = frame.keys[i] as string
      child = (value as Record<string, unknown>)[k]
    } else {
      ;[k, child] = (frame.entries as [string, string][])[i] as [string, string]
    }
    // A key set to `undefined` is absent (the parse boundary drops it, as JSON would); an array
    // entry has no such reading and is refused when visited.
    if (child === undefined) continue
    if (k.length > limits.stringLength) {
      tooLarge(frame, `has a key longer than ${limits.stringLength} characters (limit stringLength): ${quote(k)}`)
    }
    add(walk, Buffer.byteLength(k, 'utf8') + 3, child, frame, k, depth + 1)
  }
  return frame
}

/** The node of a value met while walking, made only when a fault names its path. */
function nodeOf(value: unknown, parent: Node | undefined, key: string | number, depth: number): Node {
  return { value, parent, key, depth }
}

/** The length of a finite number's JSON text (`String(n).length`), without making the string for integers. */
function numberLength(n: number): number {
  if (!Number.isSafeInteger(n)) return String(n).length
  let digits = n < 0 ? 2 : 1
  for (let x = Math.abs(n); x >= 10; x = Math.floor(x / 10)) digits++
  return digits
}

function checkPlainObject(node: Node, value: object): void {
  const proto = Object.getPrototypeOf(value)
  if (proto !== Object.prototype && proto !== null) {
    const name = typeof proto?.constructor?.name === 'string' ? proto.constructor.name : 'object'
    if (value instanceof Date) fail(node, 'is a Date, which JSON cannot carry: pass an ISO 8601 string')
    fail(node, `is a ${quote(name, 40)} instance, not a plain JSON object`)
  }
  if (Object.getOwnPropertySymbols(value).length > 0) fail(node, 'has symbol keys, which JSON cannot carry')
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
