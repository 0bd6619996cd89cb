/*
 * The typed surface: `tsc --noEmit` (npm run typecheck) checks this file, so each `@ts-expect-error`
 * below fails the build when the line it marks stops being a compile error.
 */
import { describe, expectTypeOf, it } from 'vitest'
import {
  type CallOptions,
  createEngine,
  type Discount,
  type Engine,
  type Explanation,
  type Export,
  type LoyaltiesCreateMemberParams,
  type RedeemableResult,
  type Redemption,
  type StackedRedemption,
  type ValidationResult,
  type ValidationsValidateStackableParams,
  type Voucher,
} from '../src'

type Last<T extends unknown[]> = T extends [...unknown[], infer L] ? L : never

describe('the typed API', () => {
  it('types each request from its schema and each result', () => {
    expectTypeOf<Engine['validations']['validateStackable']>()
      .parameter(0)
      .toEqualTypeOf<ValidationsValidateStackableParams>()
    expectTypeOf<Engine['validations']['validateStackable']>().returns.resolves.toEqualTypeOf<ValidationResult>()
    expectTypeOf<Engine['redemptions']['redeemStackable']>().returns.resolves.toEqualTypeOf<StackedRedemption>()
    expectTypeOf<Engine['loyalties']['redeemReward']>().returns.resolves.toEqualTypeOf<Redemption>()
    // Ids first, then the request, then the per-call options.
    expectTypeOf<Engine['loyalties']['createMember']>().parameters.toEqualTypeOf<
      [campaignId: string, body: LoyaltiesCreateMemberParams, options?: CallOptions | undefined]
    >()
    expectTypeOf<Engine['loyalties']['createMember']>().returns.resolves.toEqualTypeOf<Voucher>()
    // A literal field is typed as its literal values, so an editor completes them.
    expectTypeOf<ValidationsValidateStackableParams['redeemables'][number]['object']>().toEqualTypeOf<
      'voucher' | 'promotion_tier' | 'promotion_stack'
    >()
  })

  it('makes a redeemable result a union discriminated by its status', () => {
    const describe = (r: RedeemableResult) => {
      switch (r.status) {
        case 'APPLICABLE':
          expectTypeOf(r.order.total_amount).toEqualTypeOf<number>()
          if ('discount' in r.result) expectTypeOf(r.result.discount).toEqualTypeOf<Discount>()
          return r.order.total_applied_discount_amount
        case 'INAPPLICABLE':
          expectTypeOf(r.result.error.key).toEqualTypeOf<string>()
          expectTypeOf(r.explanation).toEqualTypeOf<Explanation | undefined>()
          // @ts-expect-error an inapplicable result has no order
          return r.order.total_amount
        case 'SKIPPED':
          expectTypeOf(r.result.details.message).toEqualTypeOf<string>()
          return 0
        default: {
          const never: never = r
          return never
        }
      }
    }
    expectTypeOf(describe).returns.toEqualTypeOf<number | undefined>()
  })

  it('gives an export its file url once it is DONE', () => {
    const url = (e: Export) => (e.status === 'DONE' ? e.result.url : e.result)
    expectTypeOf(url).returns.toEqualTypeOf<string | null>()
  })

  it('takes CallOptions last on every operation', () => {
    type Operations = Omit<Engine, 'settings' | 'raw'>
    type Ops<T> = {
      [K in keyof T]: T[K] extends (...args: infer A) => unknown ? Last<Required<A>> : Ops<T[K]>
    }
    type LastArgs<T> = T extends CallOptions ? never : { [K in keyof T]: LastArgs<T[K]> }[keyof T]
    // Walks every namespace: any operation whose last parameter is not CallOptions surfaces here.
    expectTypeOf<LastArgs<Ops<Operations>>>().toEqualTypeOf<never>()
  })

  it('makes a misspelt field a compile error and accepts a parsed JSON body through engine.raw', async () => {
    const engine = createEngine()
    const misspelt = async () => {
      // @ts-expect-error `redeemable` is not a field (it is `redeemables`)
      await engine.validations.validateStackable({ redeemable: [{ object: 'voucher', id: 'X' }] })
      await engine.validations.validateStackable({
        // @ts-expect-error `vouchr` is not an object type
        redeemables: [{ object: 'vouchr', id: 'X' }],
      })
      // @ts-expect-error `amount_off` is a number of minor units, not a string
      await engine.vouchers.create({ type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: '10' } })
      // @ts-expect-error `idempotency_key` is not a call option (it is `idempotencyKey`)
      await engine.orders.create({ amount: 100 }, { idempotency_key: 'k' })
      const body: unknown = JSON.parse('{}')
      // @ts-expect-error a body typed `unknown` needs the explicit entry
      await engine.validations.validateStackable(body)
    }
    expectTypeOf(misspelt).toBeFunction()

    const body: unknown = JSON.parse('{"redeemables":[{"object":"voucher","id":"NOPE"}]}')
    expectTypeOf(engine.raw.validations.validateStackable).parameter(0).toBeUnknown()
    expectTypeOf(engine.raw.loyalties.createMember).parameter(0).toEqualTypeOf<string>()
    expectTypeOf(engine.raw.loyalties.createMember).parameter(1).toBeUnknown()
    expectTypeOf(engine.raw.redemptions.redeemStackable).returns.resolves.toEqualTypeOf<StackedRedemption>()
    const result = await engine.raw.validations.validateStackable(body, { idempotencyKey: 'k' })
    expectTypeOf(result).toEqualTypeOf<ValidationResult>()
  })
})
