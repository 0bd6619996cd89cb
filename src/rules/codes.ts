import { EngineError } from '../errors'
import type { CodeConfig } from '../model/campaign'
import type { RandomSource } from '../storage/ports'

/** Digits, upper and lower case letters: the hosted service's default code alphabet. */
export const DEFAULT_CHARSET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const DEFAULT_CODE_LENGTH = 8
/**
 * The longest code a config may generate, prefix and postfix included: a code is an identifier
 * people type. Without a bound, `length: 42000000` made one create call build a 42 MB code.
 */
export const MAX_CODE_LENGTH = 255
/** Each `#` of a pattern is replaced by one character of the charset. */
export const PATTERN_PLACEHOLDER = '#'

/** A code config with its defaults filled in, as a campaign reports it (`length` and `charset` always present). */
export interface ResolvedCodeConfig {
  pattern?: string
  length: number
  charset: string
  prefix?: string
  postfix?: string
}

/**
 * Checks a code config and fills in its defaults. A pattern decides the length (its `#` count) and
 * wins over `length`; without one, `length` characters of the charset are drawn (default 8).
 */
export function resolveCodeConfig(config: CodeConfig, path = 'code_config'): ResolvedCodeConfig {
  const charset = config.charset ?? DEFAULT_CHARSET
  if (charset.length === 0) throw EngineError.invalid(`${path}.charset`, 'must not be empty')
  let length: number
  if (config.pattern !== undefined) {
    length = countPlaceholders(config.pattern)
    if (length === 0) {
      throw EngineError.invalid(`${path}.pattern`, `must contain at least one ${PATTERN_PLACEHOLDER}`)
    }
  } else {
    length = config.length ?? DEFAULT_CODE_LENGTH
    if (!Number.isSafeInteger(length) || length < 1)
      throw EngineError.invalid(`${path}.length`, 'must be an integer ≥ 1')
  }
  const total = (config.prefix?.length ?? 0) + (config.pattern?.length ?? length) + (config.postfix?.length ?? 0)
  if (total > MAX_CODE_LENGTH) {
    const field = config.pattern !== undefined ? 'pattern' : 'length'
    throw EngineError.invalid(
      `${path}.${field}`,
      `makes codes of ${total} characters with prefix and postfix; the most is ${MAX_CODE_LENGTH}`,
    )
  }
  const out: ResolvedCodeConfig = { length, charset }
  if (config.pattern !== undefined) out.pattern = config.pattern
  if (config.prefix !== undefined) out.prefix = config.prefix
  if (config.postfix !== undefined) out.postfix = config.postfix
  return out
}

function countPlaceholders(pattern: string): number {
  let n = 0
  for (const ch of pattern) if (ch === PATTERN_PLACEHOLDER) n++
  return n
}

function makeCode(c: ResolvedCodeConfig, chars: readonly string[], random: RandomSource): string {
  // Index by code point so a charset with astral characters still yields whole characters.
  const draw = () => chars[Math.min(chars.length - 1, Math.floor(random() * chars.length))] ?? ''
  let body = ''
  if (c.pattern !== undefined) {
    for (const ch of c.pattern) body += ch === PATTERN_PLACEHOLDER ? draw() : ch
  } else {
    for (let i = 0; i < c.length; i++) body += draw()
  }
  return (c.prefix ?? '') + body + (c.postfix ?? '')
}

/** One code from a config: the pattern with each `#` drawn from the charset, or `length` drawn characters; prefix and postfix around it. */
export function generateCode(config: CodeConfig, random: RandomSource, path = 'code_config'): string {
  const c = resolveCodeConfig(config, path)
  return makeCode(c, Array.from(c.charset), random)
}

/**
 * How many distinct codes a config can make: charset size to the power of the generated length,
 * capped at `Number.MAX_SAFE_INTEGER` (beyond that the space is never the limit).
 */
export function codeSpace(config: CodeConfig, path = 'code_config'): number {
  const c = resolveCodeConfig(config, path)
  const size = BigInt(new Set(Array.from(c.charset)).size)
  const space = size ** BigInt(c.length)
  return space > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(space)
}

/** Draws per wanted code before giving up: collisions are rare unless the space is nearly full. */
export const CODE_ATTEMPTS_PER_CODE = 20

/**
 * `count` codes, distinct from each other and from every code `taken` reports. Collisions are retried
 * a bounded number of times; a config whose space cannot hold `count` codes fails before drawing, and
 * one that is (nearly) exhausted by taken codes fails once the attempts run out, both naming `path`.
 */
export function generateUniqueCodes(
  config: CodeConfig,
  count: number,
  random: RandomSource,
  taken: (code: string) => boolean = () => false,
  path = 'code_config',
): string[] {
  if (!Number.isSafeInteger(count) || count < 0) throw EngineError.invalid('count', 'must be an integer ≥ 0')
  const resolved = resolveCodeConfig(config, path)
  const chars = Array.from(resolved.charset)
  const space = codeSpace(resolved, path)
  if (count > space) {
    throw EngineError.invalid(path, `allows only ${space} distinct codes but ${count} were requested`)
  }
  const out: string[] = []
  const seen = new Set<string>()
  const maxAttempts = count * CODE_ATTEMPTS_PER_CODE + 100
  let attempts = 0
  while (out.length < count) {
    if (attempts++ >= maxAttempts) {
      throw EngineError.invalid(
        path,
        `could generate only ${out.length} of ${count} unused codes in ${maxAttempts} attempts: the code space (${space}) is nearly exhausted; use a longer pattern or a larger charset`,
      )
    }
    const code = makeCode(resolved, chars, random)
    if (seen.has(code) || taken(code)) continue
    seen.add(code)
    out.push(code)
  }
  return out
}
