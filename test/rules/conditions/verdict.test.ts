import { describe, expect, it } from 'vitest'
import type { ValidationRule } from '../../../src/model/validation-rule'
import { evaluateValidationRule, redeemableLabel, ruleCategory } from '../../../src/rules/conditions/verdict'
import { baseContext } from './fixtures'

// examples.md G: rule 1 customer.segment with its own message, rule 2 product.id without, a fallback.
const iphoneForNewCustomers: Pick<ValidationRule, 'id' | 'rules' | 'error'> = {
  id: 'val_WuupvE7OVXyo',
  error: { message: 'You must buy IPhone and be our new customer' },
  rules: {
    '1': {
      name: 'customer.segment',
      conditions: { $is: ['seg_n3wCu5tom3r'] },
      error: { message: "You can't get discount because you are not a new customer" },
    },
    '2': { name: 'product.id', conditions: { $is: [{ id: 'prod_f1r5Tpr0DuC7', object: 'product' }] } },
    logic: '1 and 2',
  },
}

const iphoneOrder = {
  amount: 100000,
  items: [{ product_id: 'prod_f1r5Tpr0DuC7', price: 100000, quantity: 1, amount: 100000 }],
}
const newCustomer = { id: 'cust_1', segments: ['seg_n3wCu5tom3r'] }
const options = { subject: redeemableLabel('DISCOUNT_VOUCHER') }

describe('custom messages (examples.md G)', () => {
  it('a segment failure returns the rule 1 message with the segment reason', () => {
    const ctx = baseContext({ order: iphoneOrder, customer: { id: 'cust_2', segments: ['seg_old'] } })
    const verdict = evaluateValidationRule(iphoneForNewCustomers, ctx, options)
    expect(verdict.passed).toBe(false)
    expect(verdict.error).toEqual({
      code: 400,
      key: 'customer_rules_violated',
      message: 'customer does not match segment rules',
      details: 'Discount Coupon cannot be redeemed because of violated validation rules: val_WuupvE7OVXyo',
      reason: 'customer does not match segment rules',
      error: { message: "You can't get discount because you are not a new customer" },
    })
    expect(verdict.failures).toEqual([
      {
        rule: '1',
        name: 'customer.segment',
        operator: '$is',
        expected: ['seg_n3wCu5tom3r'],
        actual: ['seg_old'],
        reason: 'condition_failed',
        message: "You can't get discount because you are not a new customer",
        detail: 'customer.segment $is ["seg_n3wCu5tom3r"]: actual ["seg_old"]',
      },
    ])
  })

  it('a missing iPhone returns the fallback message with the order reason', () => {
    const ctx = baseContext({ customer: newCustomer })
    const verdict = evaluateValidationRule(iphoneForNewCustomers, ctx, options)
    expect(verdict.error).toEqual({
      code: 400,
      key: 'order_rules_violated',
      message: 'order does not match validation rules',
      details: 'Discount Coupon cannot be redeemed because of violated validation rules: val_WuupvE7OVXyo',
      reason: 'order does not match validation rules',
      error: { message: 'You must buy IPhone and be our new customer' },
    })
    expect(verdict.failures.map((f) => f.rule)).toEqual(['2'])
  })

  it('passing both gives no error', () => {
    const ctx = baseContext({ order: iphoneOrder, customer: newCustomer })
    expect(evaluateValidationRule(iphoneForNewCustomers, ctx, options)).toEqual({ passed: true, failures: [] })
  })

  it('with neither message there is no nested error', () => {
    const bare = { id: 'val_1', rules: { '1': { name: 'order.amount', conditions: { $more_than: [200000] } } } }
    const verdict = evaluateValidationRule(bare, baseContext(), { subject: 'Promotion Tier' })
    expect(verdict.error).toEqual({
      code: 400,
      key: 'order_rules_violated',
      message: 'order does not match validation rules',
      details: 'Promotion Tier cannot be redeemed because of violated validation rules: val_1',
      reason: 'order does not match validation rules',
    })
  })
})

describe('classification', () => {
  it('missing_customer when a deciding rule needs a customer', () => {
    const rule = {
      id: 'val_2',
      rules: { '1': { name: 'customer.metadata', property: 'tier', conditions: { $is: ['gold'] } } },
    }
    expect(evaluateValidationRule(rule, baseContext({ customer: null })).error).toEqual({
      code: 400,
      key: 'missing_customer',
      message: 'Missing customer',
      details: 'Customer is required to validate rules',
      reason: 'missing customer',
    })
  })

  it('redemption_rules_violated for budgets, with the generic subject by default', () => {
    const rule = {
      id: 'val_wvipKm99CJuL',
      rules: { '1': { name: 'redemption.gift.amount', conditions: { $less_than_or_equal: [1000] } } },
    }
    expect(evaluateValidationRule(rule, baseContext(), { subject: redeemableLabel('GIFT_VOUCHER') }).error).toEqual({
      code: 400,
      key: 'redemption_rules_violated',
      message: 'redemption does not match validation rules',
      details: 'Gift Card cannot be redeemed because of violated validation rules: val_wvipKm99CJuL',
      reason: 'redemption does not match validation rules',
    })
    expect(evaluateValidationRule(rule, baseContext()).error?.details).toBe(
      'Redeemable cannot be redeemed because of violated validation rules: val_wvipKm99CJuL',
    )
  })

  it('customer_rules_violated with the validation-rules reason for the linked-holder rule', () => {
    const rule = {
      id: 'val_3',
      error: { message: 'Only the gift card owner can apply credits from the gift card to the order.' },
      rules: { '1': { name: 'publication.redeemable_by_linked_customer', conditions: { $is: [true] } } },
    }
    const verdict = evaluateValidationRule(rule, baseContext({ publication: { holder_id: 'cust_9' } }))
    expect(verdict.error).toMatchObject({
      key: 'customer_rules_violated',
      reason: 'customer does not match validation rules',
      error: { message: 'Only the gift card owner can apply credits from the gift card to the order.' },
    })
  })

  it('categorises rule names', () => {
    expect(ruleCategory('customer.segment')).toBe('customer')
    expect(ruleCategory('publication.redeemable_by_linked_customer')).toBe('customer')
    expect(ruleCategory('order.items.any')).toBe('order')
    expect(ruleCategory('sku.id')).toBe('order')
    expect(ruleCategory('campaign.orders.amount')).toBe('redemption')
    expect(ruleCategory('logic')).toBe('redemption')
  })
})
