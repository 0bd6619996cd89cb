import type { Decimal } from 'decimal.js'
import { decimal } from '../../money'
import { FormulaFailure } from './failure'
import { type Operator, type Token, tokenize } from './tokenize'

/** A parsed formula. Numbers are decimal.js values read from their text, never binary floats. */
export type Node =
  | { kind: 'number'; value: Decimal; pos: number }
  | { kind: 'string'; value: string; pos: number }
  | { kind: 'operand'; name: string; pos: number }
  | { kind: 'call'; name: string; args: Node[]; pos: number }
  | { kind: 'negate'; operand: Node; pos: number }
  | { kind: 'binary'; op: Operator; left: Node; right: Node; pos: number }

/**
 * Precedence, loosest first: `OR`; `AND`; comparisons, string and date operators (one per level, not
 * chained); `+ -`; `x ÷ %`; unary minus. Function arguments are separated by `;`; inside `SWITCH`
 * the `SWITCH_CASE(k;r)` calls may follow each other with no separator, as the hosted examples write them.
 */
export function parse(source: string): Node {
  const p = new Parser(tokenize(source))
  const node = p.expression()
  const next = p.peek()
  if (next.kind !== 'end') throw new FormulaFailure('syntax', `unexpected ${describe(next)}`, next.pos)
  return node
}

const COMPARISONS: ReadonlySet<Operator> = new Set([
  '<',
  '<=',
  '>',
  '>=',
  '=',
  '!=',
  'is',
  'isNot',
  'contains',
  'startsWith',
  'endsWith',
  'DATE_IS',
  'IS_AFTER',
  'IS_BEFORE',
])

class Parser {
  private i = 0
  constructor(private readonly tokens: Token[]) {}

  peek(): Token {
    return this.tokens[this.i] as Token
  }

  private next(): Token {
    const t = this.tokens[this.i] as Token
    if (t.kind !== 'end') this.i++
    return t
  }

  private isOp(...ops: Operator[]): Operator | null {
    const t = this.peek()
    return t.kind === 'op' && ops.includes(t.op) ? t.op : null
  }

  expression(): Node {
    return this.or()
  }

  private or(): Node {
    let left = this.and()
    while (this.isOp('OR')) {
      const pos = this.next().pos
      left = { kind: 'binary', op: 'OR', left, right: this.and(), pos }
    }
    return left
  }

  private and(): Node {
    let left = this.comparison()
    while (this.isOp('AND')) {
      const pos = this.next().pos
      left = { kind: 'binary', op: 'AND', left, right: this.comparison(), pos }
    }
    return left
  }

  private comparison(): Node {
    const left = this.additive()
    const t = this.peek()
    if (t.kind === 'op' && COMPARISONS.has(t.op)) {
      this.next()
      return { kind: 'binary', op: t.op, left, right: this.additive(), pos: t.pos }
    }
    return left
  }

  private additive(): Node {
    let left = this.multiplicative()
    for (let op = this.isOp('+', '-'); op !== null; op = this.isOp('+', '-')) {
      const pos = this.next().pos
      left = { kind: 'binary', op, left, right: this.multiplicative(), pos }
    }
    return left
  }

  private multiplicative(): Node {
    let left = this.unary()
    for (let op = this.isOp('*', '/', '%'); op !== null; op = this.isOp('*', '/', '%')) {
      const pos = this.next().pos
      left = { kind: 'binary', op, left, right: this.unary(), pos }
    }
    return left
  }

  private unary(): Node {
    const op = this.isOp('-', '+')
    if (op !== null) {
      const pos = this.next().pos
      const operand = this.unary()
      return op === '-' ? { kind: 'negate', operand, pos } : operand
    }
    return this.primary()
  }

  private primary(): Node {
    const t = this.next()
    switch (t.kind) {
      case 'number':
        return { kind: 'number', value: decimal(t.text), pos: t.pos }
      case 'string':
        return { kind: 'string', value: t.value, pos: t.pos }
      case '(': {
        const inner = this.expression()
        this.expect(')', 'a closing parenthesis')
        return inner
      }
      case 'word': {
        if (this.peek().kind !== '(') return { kind: 'operand', name: t.text, pos: t.pos }
        this.next()
        return { kind: 'call', name: t.text, args: this.args(t.text), pos: t.pos }
      }
      case 'op':
      case ')':
      case ';':
      case 'end':
        throw new FormulaFailure('syntax', `expected a value, found ${describe(t)}`, t.pos)
      default: {
        const _never: never = t
        return _never
      }
    }
  }

  private args(name: string): Node[] {
    const args: Node[] = []
    if (this.peek().kind === ')') {
      this.next()
      return args
    }
    for (;;) {
      args.push(this.expression())
      const t = this.peek()
      if (t.kind === ';') {
        this.next()
        continue
      }
      if (t.kind === ')') {
        this.next()
        return args
      }
      if (name === 'SWITCH' && t.kind === 'word' && t.text === 'SWITCH_CASE') continue
      throw new FormulaFailure('syntax', `expected ";" or ")", found ${describe(t)}`, t.pos)
    }
  }

  private expect(kind: ')', what: string): void {
    const t = this.next()
    if (t.kind !== kind) throw new FormulaFailure('syntax', `expected ${what}, found ${describe(t)}`, t.pos)
  }
}

function describe(t: Token): string {
  switch (t.kind) {
    case 'number':
      return `number ${t.text}`
    case 'string':
      return `string "${t.value}"`
    case 'word':
      return `"${t.text}"`
    case 'op':
      return `operator "${t.op}"`
    case 'end':
      return 'the end of the formula'
    case '(':
    case ')':
    case ';':
      return `"${t.kind}"`
    default: {
      const _never: never = t
      return _never
    }
  }
}
