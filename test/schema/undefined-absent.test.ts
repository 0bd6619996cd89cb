import { describe, expect, it } from 'vitest'
import { engineContext } from '../../src/engine'
import { withoutUndefined } from '../../src/schema/parse'
import { testEngine } from '../support/engine'

describe('a key set to undefined is absent (the one rule at the parse boundary)', () => {
  it('drops such keys at any depth, copying only what holds one', () => {
    const untouched = { a: 1, b: { c: [1, { d: 'x' }] } }
    expect(withoutUndefined(untouched)).toBe(untouched)
    const input = { a: undefined, b: { c: [{ d: undefined, e: 1 }], f: 2 }, g: [undefined] }
    expect(withoutUndefined(input)).toStrictEqual({ b: { c: [{ e: 1 }], f: 2 }, g: [undefined] })
    expect(input).toStrictEqual({ a: undefined, b: { c: [{ d: undefined, e: 1 }], f: 2 }, g: [undefined] })
  })

  it('leaves values that are not plain objects as they are', () => {
    const params = new URLSearchParams('a=1')
    expect(withoutUndefined(params)).toBe(params)
    expect(withoutUndefined(undefined)).toBeUndefined()
  })

  it('lets an operation take optional fields set to undefined, at the top and nested', async () => {
    const { engine } = testEngine()
    const campaign = await engine.campaigns.create({
      name: 'Summer',
      campaign_type: 'DISCOUNT_COUPONS',
      description: undefined,
      category: undefined,
      vouchers_count: 1,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 500, effect: undefined } },
    })
    expect(campaign).toMatchObject({ name: 'Summer', description: null })
    const [code] = (await engineContext(engine).store.vouchers.list({ where: { campaign_id: campaign.id } })).data
    const validation = await engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: code?.value.code ?? '' }],
      customer: undefined,
      order: { amount: 2000, items: undefined, metadata: undefined },
      session: undefined,
    })
    expect(validation).toMatchObject({ valid: true, order: { discount_amount: 500 } })
  })

  it('still requires a required field set to undefined, naming it', async () => {
    const { engine } = testEngine()
    await expect(engine.raw.categories.create({ name: undefined })).rejects.toMatchObject({ code: 400, path: 'name' })
  })
})
