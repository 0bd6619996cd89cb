import { describe, expect, it } from 'vitest'
import { engineContext } from '../../src/engine'
import { expirationAfterPublishing } from '../../src/rules/time-validity'
import { testEngine } from '../support/engine'

const T = '2026-01-15T10:00:00.000Z'

describe('expirationAfterPublishing', () => {
  const fresh = { expiration_date: null, publish: { count: 0 } }
  it('first publication at T with P7D: T + 7 days', () =>
    expect(expirationAfterPublishing(fresh, 'P7D', new Date(T), 'UTC')).toBe('2026-01-22T10:00:00.000Z'))
  it('an earlier expiration of the code is kept', () =>
    expect(
      expirationAfterPublishing({ ...fresh, expiration_date: '2026-01-20T00:00:00.000Z' }, 'P7D', new Date(T), 'UTC'),
    ).toBe('2026-01-20T00:00:00.000Z'))
  it('a later one is brought forward', () =>
    expect(
      expirationAfterPublishing({ ...fresh, expiration_date: '2026-12-31T00:00:00.000Z' }, 'PT2H', new Date(T), 'UTC'),
    ).toBe('2026-01-15T12:00:00.000Z'))
  it('a republished code keeps the timer of its first publication', () =>
    expect(
      expirationAfterPublishing(
        { expiration_date: '2026-01-22T10:00:00.000Z', publish: { count: 1 } },
        'P7D',
        new Date('2026-01-20T00:00:00.000Z'),
        'UTC',
      ),
    ).toBe('2026-01-22T10:00:00.000Z'))
  it('no duration: the dates are unchanged', () =>
    expect(expirationAfterPublishing(fresh, null, new Date(T), 'UTC')).toBe(null))
})

describe('activity_duration_after_publishing on a published code', () => {
  it('published at T with PT1H: applicable just before T+1h, voucher_expired just after; an unpublished code is not affected', async () => {
    const { engine, clock } = testEngine()
    await engine.campaigns.create({
      name: 'Flash',
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 2,
      activity_duration_after_publishing: 'PT1H',
      voucher: { discount: { type: 'AMOUNT', amount_off: 500 } },
    })
    clock.set('2026-01-15T10:00:00.000Z')
    const published = await engine.publications.create({ customer: { source_id: 'alice' }, campaign: 'Flash' })
    const code = published.voucher?.code ?? ''
    expect(published.voucher?.expiration_date).toBe('2026-01-15T11:00:00.000Z')
    const validate = (c: string) =>
      engine.validations.validateStackable({
        customer: { source_id: 'alice' },
        order: { amount: 10000 },
        redeemables: [{ object: 'voucher', id: c }],
      })
    clock.set('2026-01-15T10:59:59.999Z')
    expect((await validate(code)).valid).toBe(true)
    clock.set('2026-01-15T11:00:00.001Z')
    const late = await validate(code)
    expect(late.valid).toBe(false)
    expect(late.inapplicable_redeemables?.[0]).toMatchObject({ result: { error: { key: 'voucher_expired' } } })
    // The other code was never published: the timer has not started for it.
    const unpublished = (await engineContext(engine).store.vouchers.list()).data.find((s) => s.value.code !== code)
    expect(unpublished?.value.expiration_date ?? null).toBe(null)
    expect((await validate(unpublished?.value.code ?? '')).valid).toBe(true)
  })
})
