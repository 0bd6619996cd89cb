import { describe, expect, it } from 'vitest'
import {
  checkFormulaSyntax,
  evaluateFormula,
  type FormulaContext,
  type FormulaItem,
  readsOrderItem,
  toMinorUnits,
} from '../../../src/rules/formulas'

function value(source: string, context: FormulaContext = {}): string {
  const out = evaluateFormula(source, context)
  if (!out.ok) throw new Error(`${source}: ${out.reason.code} ${out.reason.message}`)
  return out.value.toString()
}

function failure(source: string, context: FormulaContext = {}) {
  const out = evaluateFormula(source, context)
  if (out.ok) throw new Error(`${source} evaluated to ${out.value.toString()}`)
  return out.reason
}

function item(price: number, quantity = 1, extra: Partial<FormulaItem> = {}): FormulaItem {
  return { price, quantity, amount: price * quantity, subtotal_amount: price * quantity, ...extra }
}

describe('literal examples', () => {
  it('ORDER_ITEM_PRICE × 0.01 + 1: price 6.00 → 1.06, price 10.00 → 1.10 (major units)', () => {
    expect(value('ORDER_ITEM_PRICE × 0.01 + 1', { item: item(600) })).toBe('1.06')
    expect(value('ORDER_ITEM_PRICE x 0.01 + 1', { item: item(1000) })).toBe('1.1')
    const out = evaluateFormula('ORDER_ITEM_PRICE × 0.01 + 1', { item: item(600) })
    expect(out.ok && toMinorUnits(out.value, 'half-up')).toBe(106)
  })

  const ltv = (v: number): FormulaContext => ({ customer: { metadata: { customer_life_time_value: v } } })
  it.each([
    ['ROUND', 1, 75.55, '75.6'],
    ['ROUND', 0, 75.55, '76'],
    ['ROUND', -1, 75.55, '80'],
    ['FLOOR', 1, 75.55, '75.5'],
    ['FLOOR', 0, 75.55, '75'],
    ['FLOOR', -1, 75.55, '70'],
    ['CEIL', 1, 74.44, '74.5'],
    ['CEIL', 0, 74.44, '75'],
    ['CEIL', -1, 74.44, '80'],
  ])('%s(CUSTOMER_METADATA("customer_life_time_value");%i) of %f = %s', (fn, places, v, expected) => {
    expect(value(`${fn}(CUSTOMER_METADATA("customer_life_time_value");${places})`, ltv(v))).toBe(expected)
  })

  it('nested IF on items quantity and amount', () => {
    const f = 'IF(ORDER_ITEMS_QUANTITY > 4;IF(ORDER_AMOUNT > 200;25;15);10)'
    const five = (price: number) => Array.from({ length: 5 }, () => item(price))
    expect(value(f, { order: { amount: 25000, items: five(5000) } })).toBe('25')
    expect(value(f, { order: { amount: 20000, items: five(4000) } })).toBe('15')
    expect(value(f, { order: { amount: 50000, items: [item(50000)] } })).toBe('10')
  })

  it('SWITCH on order metadata with SWITCH_CASE entries and a default', () => {
    const f = 'SWITCH(ORDER_METADATA("store_city");SWITCH_CASE("Boston";10) SWITCH_CASE("New York";15);5)'
    const city = (c: string): FormulaContext => ({ order: { amount: 0, items: [], metadata: { store_city: c } } })
    expect(value(f, city('Boston'))).toBe('10')
    expect(value(f, city('New York'))).toBe('15')
    expect(value(f, city('Chicago'))).toBe('5')
  })

  it('AND of customer and order metadata', () => {
    const f = 'IF(CUSTOMER_METADATA("number_of_store_visits") > 10 AND ORDER_METADATA("day_of_week") = 5;20;3)'
    const ctx = (visits: number, day: number | string): FormulaContext => ({
      customer: { metadata: { number_of_store_visits: visits } },
      order: { amount: 0, items: [], metadata: { day_of_week: day } },
    })
    expect(value(f, ctx(11, 5))).toBe('20')
    expect(value(f, ctx(11, '5'))).toBe('20')
    expect(value(f, ctx(10, 5))).toBe('3')
    expect(value(f, ctx(11, 4))).toBe('3')
  })
})

describe('operators and functions', () => {
  it('precedence, parentheses, unary minus, remainder, division', () => {
    expect(value('1 + 2 * 3')).toBe('7')
    expect(value('(1 + 2) x 3')).toBe('9')
    expect(value('-2 + 5')).toBe('3')
    expect(value('10 % 4')).toBe('2')
    expect(value('10 ÷ 4')).toBe('2.5')
    expect(value('0.1 + 0.2')).toBe('0.3')
  })

  it('MIN, MAX, POW, DEFAULT_TO', () => {
    expect(value('MIN(3;1;2)')).toBe('1')
    expect(value('MAX(3;1;2)')).toBe('3')
    expect(value('POW(2;10)')).toBe('1024')
    expect(value('DEFAULT_TO(CUSTOMER_METADATA("x");7)')).toBe('7')
    expect(value('DEFAULT_TO(CUSTOMER_METADATA("x");7)', { customer: { metadata: { x: 2 } } })).toBe('2')
  })

  it('IN_ARRAY / NOT_IN_ARRAY over arguments or a metadata list', () => {
    const ctx: FormulaContext = { customer: { metadata: { tier: 'gold', tags: ['a', 'vip'] } } }
    expect(value('IF(IN_ARRAY(CUSTOMER_METADATA("tier");"gold";"silver");1;0)', ctx)).toBe('1')
    expect(value('IF(NOT_IN_ARRAY(CUSTOMER_METADATA("tier");"bronze");1;0)', ctx)).toBe('1')
    expect(value('IF(IN_ARRAY("vip";CUSTOMER_METADATA("tags"));1;0)', ctx)).toBe('1')
  })

  it('string operators', () => {
    const ctx: FormulaContext = { order: { amount: 0, items: [], metadata: { code: 'SUMMER-2024' } } }
    expect(value('IF(ORDER_METADATA("code") startsWith "SUMMER";1;0)', ctx)).toBe('1')
    expect(value('IF(ORDER_METADATA("code") endsWith "2023";1;0)', ctx)).toBe('0')
    expect(value('IF(ORDER_METADATA("code") contains "-";1;0)', ctx)).toBe('1')
    expect(value('IF(ORDER_METADATA("code") isNot "X";1;0)', ctx)).toBe('1')
    expect(value('IF(ORDER_METADATA("code") is "SUMMER-2024" OR 1 > 2;1;0)', ctx)).toBe('1')
  })

  it('cheapest and most expensive lines: lowest price, then lower subtotal, then first', () => {
    const items = [item(500, 2), item(300, 1, { subtotal_amount: 250 }), item(300, 4), item(900, 1)]
    const ctx: FormulaContext = { order: { amount: 3400, items } }
    expect(value('CHEAPEST_ORDER_ITEM_SUBTOTAL', ctx)).toBe('2.5')
    expect(value('CHEAPEST_ORDER_ITEM_PRICE', ctx)).toBe('3')
    expect(value('MOST_EXPENSIVE_ORDER_ITEM_AMOUNT', ctx)).toBe('9')
    expect(value('ORDER_UNITS_QUANTITY', ctx)).toBe('8')
    expect(value('ORDER_ITEMS_QUANTITY', ctx)).toBe('4')
  })

  it('voucher counters', () => {
    const ctx: FormulaContext = { redeemable: { redemption_quantity: 10, redeemed_quantity: 3, publish_count: 2 } }
    expect(value('VOUCHER_REDEMPTION_QUANTITY - VOUCHER_REDEEMED_QUANTITY + VOUCHER_PUBLISH_COUNT', ctx)).toBe('9')
    expect(failure('VOUCHER_REDEMPTION_QUANTITY', { redeemable: { redemption_quantity: null } }).code).toBe(
      'missing_value',
    )
  })

  it('reads the line only in per-item formulas', () => {
    expect(readsOrderItem('ORDER_ITEM_PRICE × 0.01 + 1')).toBe(true)
    expect(readsOrderItem('MAX(ORDER_ITEM_METADATA("k");1)')).toBe(true)
    expect(readsOrderItem('MIN(ORDER_AMOUNT x 0.1; 50)')).toBe(false)
    expect(failure('ORDER_ITEM_PRICE').code).toBe('item_required')
  })
})

describe('failures', () => {
  it('syntax errors carry the position', () => {
    expect(checkFormulaSyntax('MIN(1;2')).toEqual({
      code: 'syntax',
      message: 'expected ";" or ")", found the end of the formula (at 7)',
      position: 7,
    })
    expect(checkFormulaSyntax('1 + * 2')?.position).toBe(4)
    expect(checkFormulaSyntax('1 + 2)')?.position).toBe(5)
    expect(checkFormulaSyntax('"open')?.position).toBe(0)
    expect(checkFormulaSyntax('3 # 4')).toMatchObject({ code: 'syntax', position: 2 })
    expect(checkFormulaSyntax('MIN(ORDER_AMOUNT x 0.1; 50)')).toBeNull()
  })

  it('unknown words, missing metadata, division by zero, arity, non-numbers', () => {
    expect(failure('ORDER_TOTAL + 1')).toMatchObject({ code: 'unknown_operand', position: 0 })
    expect(failure('2 + FOO(1)')).toMatchObject({ code: 'unknown_function', position: 4 })
    expect(failure('CUSTOMER_METADATA("ltv")', { customer: { metadata: {} } })).toMatchObject({
      code: 'missing_value',
      position: 0,
    })
    expect(failure('10 / (2 - 2)')).toMatchObject({ code: 'division_by_zero', position: 3 })
    expect(failure('POW(2)').code).toBe('arity')
    expect(failure('"text"').code).toBe('not_a_number')
    expect(failure('1 < 2').code).toBe('not_a_number')
  })

  it('an IF only evaluates the branch it takes', () => {
    expect(value('IF(1 > 0;5;CUSTOMER_METADATA("missing"))')).toBe('5')
  })
})

describe('resolveDiscountFormulas', () => {
  it('a result beyond a safe integer falls back to the static value', async () => {
    const { resolveDiscountFormulas } = await import('../../../src/rules/formulas')
    const out = resolveDiscountFormulas(
      { type: 'AMOUNT', amount_off: 700, amount_off_formula: 'POW(10;30)', effect: 'APPLY_TO_ORDER' },
      {},
      'half-up',
    )
    expect(out?.discount).toMatchObject({ amount_off: 700, is_dynamic: true })
    expect(out?.uses[0]?.fallback?.code).toBe('not_a_number')
  })
})
