import { FormulaFailure } from './failure'

/**
 * The formula language's words (docs/behaviour.md#formulas). Multiplication is written `x`, `×` or `*`, division
 * `÷` or `/`; `%` is the remainder. `;` separates arguments. Words are operands, functions, `AND`/`OR`,
 * the string operators (`is`, `isNot`, `contains`, `startsWith`, `endsWith`), the date comparisons
 * (`DATE_IS`, `IS_AFTER`, `IS_BEFORE`) or the lone `x`.
 */
export type Token =
  | { kind: 'number'; text: string; pos: number }
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'word'; text: string; pos: number }
  | { kind: 'op'; op: Operator; pos: number }
  | { kind: '(' | ')' | ';' | 'end'; pos: number }

export type Operator =
  | '+'
  | '-'
  | '*'
  | '/'
  | '%'
  | '<'
  | '<='
  | '>'
  | '>='
  | '='
  | '!='
  | 'AND'
  | 'OR'
  | 'is'
  | 'isNot'
  | 'contains'
  | 'startsWith'
  | 'endsWith'
  | 'DATE_IS'
  | 'IS_AFTER'
  | 'IS_BEFORE'

const WORD_OPERATORS: Readonly<Record<string, Operator>> = {
  x: '*',
  AND: 'AND',
  OR: 'OR',
  is: 'is',
  isNot: 'isNot',
  contains: 'contains',
  startsWith: 'startsWith',
  endsWith: 'endsWith',
  DATE_IS: 'DATE_IS',
  IS_AFTER: 'IS_AFTER',
  IS_BEFORE: 'IS_BEFORE',
}

/**
 * The date comparisons are written both ways: `a IS_AFTER b` and `IS_AFTER(a; b)` (docs/behaviour.md#formulas
 * lists them as operators).
 */
const ALSO_FUNCTIONS: ReadonlySet<string> = new Set(['DATE_IS', 'IS_AFTER', 'IS_BEFORE'])

/** Positions are 0-based offsets into the source, for error messages. */
export function tokenize(source: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  const n = source.length
  while (i < n) {
    const c = source[i] as string
    if (c === ' ' || c === '\t' || c === '\n' || c === '\r') {
      i++
      continue
    }
    const start = i
    if (isDigit(c) || (c === '.' && isDigit(source[i + 1] ?? ''))) {
      while (i < n && isDigit(source[i] as string)) i++
      if (source[i] === '.') {
        i++
        if (!isDigit(source[i] ?? '')) throw new FormulaFailure('syntax', 'a digit must follow the decimal point', i)
        while (i < n && isDigit(source[i] as string)) i++
      }
      tokens.push({ kind: 'number', text: source.slice(start, i), pos: start })
      continue
    }
    if (c === '"') {
      i++
      let value = ''
      while (i < n && source[i] !== '"') {
        // `\"` and `\\` let a string hold a quote or a backslash.
        if (source[i] === '\\' && i + 1 < n) i++
        value += source[i]
        i++
      }
      if (i >= n) throw new FormulaFailure('syntax', 'unterminated string', start)
      i++
      tokens.push({ kind: 'string', value, pos: start })
      continue
    }
    if (isWordStart(c)) {
      while (i < n && isWordPart(source[i] as string)) i++
      const text = source.slice(start, i)
      const op = WORD_OPERATORS[text]
      // Infix after a value (`TODAY IS_AFTER (x)`), a call otherwise (`IS_AFTER(TODAY; x)`).
      const call = ALSO_FUNCTIONS.has(text) && nextNonSpace(source, i) === '(' && !endsValue(tokens.at(-1))
      tokens.push(op === undefined || call ? { kind: 'word', text, pos: start } : { kind: 'op', op, pos: start })
      continue
    }
    const two = source.slice(i, i + 2)
    if (two === '<=' || two === '>=' || two === '!=' || two === '<>' || two === '==') {
      tokens.push({ kind: 'op', op: two === '<>' ? '!=' : two === '==' ? '=' : two, pos: start })
      i += 2
      continue
    }
    const op = SYMBOLS[c]
    if (op !== undefined) {
      tokens.push({ kind: 'op', op, pos: start })
      i++
      continue
    }
    if (c === '(' || c === ')' || c === ';') {
      tokens.push({ kind: c, pos: start })
      i++
      continue
    }
    throw new FormulaFailure('syntax', `unexpected character "${c}"`, start)
  }
  tokens.push({ kind: 'end', pos: n })
  return tokens
}

const SYMBOLS: Readonly<Record<string, Operator>> = {
  '+': '+',
  '-': '-',
  '*': '*',
  '×': '*',
  '/': '/',
  '÷': '/',
  '%': '%',
  '<': '<',
  '>': '>',
  '=': '=',
}

function endsValue(t: Token | undefined): boolean {
  return t !== undefined && (t.kind === 'number' || t.kind === 'string' || t.kind === 'word' || t.kind === ')')
}

function nextNonSpace(source: string, from: number): string | undefined {
  let i = from
  while (i < source.length && /\s/.test(source[i] as string)) i++
  return source[i]
}

function isDigit(c: string): boolean {
  return c >= '0' && c <= '9'
}

function isWordStart(c: string): boolean {
  return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c === '_'
}

function isWordPart(c: string): boolean {
  return isWordStart(c) || isDigit(c) || c === '.'
}
