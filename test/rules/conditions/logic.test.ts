import { describe, expect, it } from 'vitest'
import {
  defaultLogic,
  evaluateLogic,
  LogicSyntaxError,
  logicKeys,
  parseLogic,
} from '../../../src/rules/conditions/logic'

const truth =
  (passing: string[]) =>
  (key: string): boolean =>
    passing.includes(key)

describe('parseLogic', () => {
  it('gives and a higher precedence than or', () => {
    expect(parseLogic('1 or 2 and 3')).toEqual({
      type: 'or',
      left: { type: 'rule', key: '1' },
      right: { type: 'and', left: { type: 'rule', key: '2' }, right: { type: 'rule', key: '3' } },
    })
  })

  it('groups with parentheses and accepts any case', () => {
    expect(parseLogic('(1 AND 2) Or 3')).toEqual({
      type: 'or',
      left: { type: 'and', left: { type: 'rule', key: '1' }, right: { type: 'rule', key: '2' } },
      right: { type: 'rule', key: '3' },
    })
    expect(logicKeys(parseLogic('((10)) and (2 or 10)'))).toEqual(['10', '2'])
  })

  it.each([
    ['', 'empty logic expression'],
    ['1 and', 'expected a rule number or "(" but found end of input'],
    ['(1 or 2', 'expected ")" but found end of input'],
    ['1 2', 'unexpected "2" at position 2'],
    ['1 xor 2', 'unknown word "xor" at position 2; expected a rule number, and, or'],
    ['1 & 2', 'unexpected character "&" at position 2'],
    [') 1', 'expected a rule number or "(" but found ")" at position 0'],
  ])('rejects %j with a pointed message', (text, message) => {
    expect(() => parseLogic(text)).toThrow(LogicSyntaxError)
    expect(() => parseLogic(text)).toThrow(message)
  })
})

describe('evaluateLogic', () => {
  const node = parseLogic('(1 and 2) or 3')

  it('passes when either alternative holds', () => {
    expect(evaluateLogic(node, truth(['1', '2']))).toEqual({ passed: true, blame: [] })
    expect(evaluateLogic(node, truth(['3']))).toEqual({ passed: true, blame: [] })
  })

  it('blames every failed operand of a failing expression', () => {
    expect(evaluateLogic(node, truth(['1']))).toEqual({ passed: false, blame: ['2', '3'] })
    expect(evaluateLogic(node, truth([]))).toEqual({ passed: false, blame: ['1', '2', '3'] })
  })

  it('defaults to every rule AND-ed in numeric order', () => {
    const d = defaultLogic(['10', '2', '1'])
    expect(d).not.toBeNull()
    if (d === null) return
    expect(logicKeys(d)).toEqual(['1', '2', '10'])
    expect(evaluateLogic(d, truth(['1', '10']))).toEqual({ passed: false, blame: ['2'] })
    expect(defaultLogic([])).toBeNull()
  })
})
