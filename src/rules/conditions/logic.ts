/**
 * The `logic` expression that joins numbered rules: `(1 and 2) or 3`. Keywords in any case; `and`
 * binds tighter than `or`; parentheses group. A small recursive-descent parser so a malformed
 * expression gets an error that points at the offending token.
 */

export type LogicNode =
  | { type: 'rule'; key: string }
  | { type: 'and'; left: LogicNode; right: LogicNode }
  | { type: 'or'; left: LogicNode; right: LogicNode }

export class LogicSyntaxError extends Error {
  readonly position: number
  constructor(message: string, position: number) {
    super(message)
    this.name = 'LogicSyntaxError'
    this.position = position
  }
}

type Token = { kind: 'rule' | 'and' | 'or' | '(' | ')'; text: string; pos: number }

function tokenize(input: string): Token[] {
  const tokens: Token[] = []
  const re = /\s*(?:(\()|(\))|([A-Za-z]+)|([0-9]+)|(\S))/y
  let m: RegExpExecArray | null
  re.lastIndex = 0
  for (;;) {
    if (re.lastIndex >= input.length) break
    const start = re.lastIndex
    m = re.exec(input)
    if (m === null) break
    const pos = m.index + (m[0].length - m[0].trimStart().length)
    if (m[1] !== undefined) tokens.push({ kind: '(', text: '(', pos })
    else if (m[2] !== undefined) tokens.push({ kind: ')', text: ')', pos })
    else if (m[3] !== undefined) {
      const word = m[3].toLowerCase()
      if (word !== 'and' && word !== 'or') {
        throw new LogicSyntaxError(`unknown word "${m[3]}" at position ${pos}; expected a rule number, and, or`, pos)
      }
      tokens.push({ kind: word, text: m[3], pos })
    } else if (m[4] !== undefined) tokens.push({ kind: 'rule', text: m[4], pos })
    else if (m[5] !== undefined) {
      throw new LogicSyntaxError(`unexpected character "${m[5]}" at position ${pos}`, pos)
    } else if (re.lastIndex === start) break
  }
  return tokens
}

/** Parses a logic expression; throws `LogicSyntaxError` with the position of the problem. */
export function parseLogic(input: string): LogicNode {
  const tokens = tokenize(input)
  let i = 0
  const peek = (): Token | undefined => tokens[i]
  const describe = (t: Token | undefined): string =>
    t === undefined ? 'end of input' : `"${t.text}" at position ${t.pos}`

  const primary = (): LogicNode => {
    const t = peek()
    if (t?.kind === 'rule') {
      i++
      return { type: 'rule', key: t.text }
    }
    if (t?.kind === '(') {
      i++
      const inner = orExpr()
      const close = peek()
      if (close?.kind !== ')')
        throw new LogicSyntaxError(`expected ")" but found ${describe(close)}`, close?.pos ?? input.length)
      i++
      return inner
    }
    throw new LogicSyntaxError(`expected a rule number or "(" but found ${describe(t)}`, t?.pos ?? input.length)
  }
  const andExpr = (): LogicNode => {
    let left = primary()
    while (peek()?.kind === 'and') {
      i++
      left = { type: 'and', left, right: primary() }
    }
    return left
  }
  const orExpr = (): LogicNode => {
    let left = andExpr()
    while (peek()?.kind === 'or') {
      i++
      left = { type: 'or', left, right: andExpr() }
    }
    return left
  }

  if (tokens.length === 0) throw new LogicSyntaxError('empty logic expression', 0)
  const node = orExpr()
  const rest = peek()
  if (rest !== undefined) throw new LogicSyntaxError(`unexpected ${describe(rest)}`, rest.pos)
  return node
}

/** Every rule key the expression names, in order of first appearance. */
export function logicKeys(node: LogicNode): string[] {
  const out: string[] = []
  const walk = (n: LogicNode): void => {
    if (n.type === 'rule') {
      if (!out.includes(n.key)) out.push(n.key)
    } else {
      walk(n.left)
      walk(n.right)
    }
  }
  walk(node)
  return out
}

/** The default when `logic` is absent: every numbered rule AND-ed, in numeric order. */
export function defaultLogic(keys: readonly string[]): LogicNode | null {
  const sorted = [...keys].sort((a, b) => Number(a) - Number(b))
  let node: LogicNode | null = null
  for (const key of sorted) {
    const leaf: LogicNode = { type: 'rule', key }
    node = node === null ? leaf : { type: 'and', left: node, right: leaf }
  }
  return node
}

/**
 * Evaluates the expression and returns the rule keys that explain a "no": for a failed AND, the
 * failed operands; for a failed OR, all of them (each alternative failed). Empty when it passes.
 */
export function evaluateLogic(node: LogicNode, passed: (key: string) => boolean): { passed: boolean; blame: string[] } {
  switch (node.type) {
    case 'rule':
      return passed(node.key) ? { passed: true, blame: [] } : { passed: false, blame: [node.key] }
    case 'and': {
      const l = evaluateLogic(node.left, passed)
      const r = evaluateLogic(node.right, passed)
      if (l.passed && r.passed) return { passed: true, blame: [] }
      return { passed: false, blame: unique([...l.blame, ...r.blame]) }
    }
    case 'or': {
      const l = evaluateLogic(node.left, passed)
      const r = evaluateLogic(node.right, passed)
      if (l.passed || r.passed) return { passed: true, blame: [] }
      return { passed: false, blame: unique([...l.blame, ...r.blame]) }
    }
    default: {
      const _never: never = node
      return _never
    }
  }
}

function unique(keys: string[]): string[] {
  return [...new Set(keys)]
}
