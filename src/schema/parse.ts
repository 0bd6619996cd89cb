import { EngineError, quote } from '../errors'
import * as v from './valibot'

/** A path like `redeemables[1].id` from valibot's issue path, under an optional root. */
export function issuePath(issue: v.BaseIssue<unknown>, root?: string): string {
  let out = root ?? ''
  for (const item of issue.path ?? []) {
    const key = item.key
    if (typeof key === 'number') out += `[${key}]`
    else out += out === '' ? quote(String(key)) : `.${quote(String(key))}`
  }
  return out === '' ? (root ?? 'body') : out
}

/**
 * Parses untrusted input at the boundary: the typed value, or a 400 `EngineError` naming the first
 * bad field (its `details` lists every problem found, so one round trip fixes them all).
 */
export function parse<S extends v.GenericSchema>(schema: S, input: unknown, root?: string): v.InferOutput<S> {
  const result = v.safeParse(schema, withoutUndefined(input), { abortPipeEarly: true })
  if (result.success) return result.output
  const [first, ...rest] = result.issues
  const describe = (issue: v.BaseIssue<unknown>) => `Property .${issuePath(issue, root)} ${describeIssue(issue)}`
  const path = issuePath(first, root)
  const listed = [first, ...rest.slice(0, MAX_LISTED - 1)].map(describe)
  if (rest.length >= MAX_LISTED) listed.push(`and ${rest.length - MAX_LISTED + 1} more problems`)
  return failWith(path, listed.join('; '))
}

/**
 * The one rule for `undefined` in a request: a key whose value is `undefined` is absent, at any depth
 * (what `JSON.stringify` would send). Plain objects only; the input is copied only where it has one.
 */
export function withoutUndefined(input: unknown): unknown {
  if (Array.isArray(input)) {
    let out: unknown[] | undefined
    for (let i = 0; i < input.length; i++) {
      const item = input[i]
      const next = withoutUndefined(item)
      if (next !== item) {
        out ??= input.slice()
        out[i] = next
      }
    }
    return out ?? input
  }
  if (!isPlainObject(input)) return input
  let out: Record<string, unknown> | undefined
  for (const key in input) {
    const value = input[key]
    const next = withoutUndefined(value)
    if (next === value && value !== undefined) continue
    out ??= { ...input }
    if (value === undefined) delete out[key]
    else out[key] = next
  }
  return out ?? input
}

function isPlainObject(x: unknown): x is Record<string, unknown> {
  if (typeof x !== 'object' || x === null) return false
  const proto = Object.getPrototypeOf(x)
  return proto === Object.prototype || proto === null
}

/** Details list this many problems at most: enough to fix a request, bounded whatever was sent. */
const MAX_LISTED = 10

function failWith(path: string, details: string): never {
  throw new EngineError({ code: 400, key: 'invalid_payload', message: 'Invalid payload', details, path })
}

/** What valibot says about an issue, with the value it received quoted by its prefix only. */
function describeIssue(issue: v.BaseIssue<unknown>): string {
  const said = sayIssue(issue)
  return issue.received.length > 100 ? said.replaceAll(issue.received, quote(issue.received)) : said
}

function sayIssue(issue: v.BaseIssue<unknown>): string {
  // A key a strict object does not define.
  if (issue.expected === 'never') return 'is not a known field here'
  if (issue.received === 'undefined' && issue.kind === 'schema')
    return `is required (expected ${issue.expected ?? 'a value'})`
  if (issue.kind === 'schema') return `must be ${issue.expected ?? 'valid'} but received ${issue.received}`
  // Validation issues carry our own messages (see the pipes in ./common.ts) or valibot's clear defaults.
  return issue.message.replace(/^Invalid \w+: /, '').replace(/^Expected/, 'expected')
}
