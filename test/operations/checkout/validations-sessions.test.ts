import { describe, expect, it } from 'vitest'
import { snapshot, testEngine } from '../../support/engine'

type T = ReturnType<typeof testEngine>

async function setup(quantity: number | null = 1) {
  const t = testEngine()
  await t.engine.vouchers.create({
    code: 'ONE',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 1000, effect: 'APPLY_TO_ORDER' },
    redemption: { quantity },
  })
  return t
}

async function validate(t: T, session?: Record<string, unknown>) {
  return t.engine.raw.validations.validateStackable({
    redeemables: [{ object: 'voucher', id: 'ONE' }],
    order: { amount: 5000 },
    ...(session ? { session } : {}),
  })
}

describe('vouchers.releaseValidationSession', () => {
  it('releases the lock, which frees the quantity', async () => {
    const t = await setup()
    const locked = await validate(t, { type: 'LOCK', key: 'ssn_mine' })
    expect(locked.session).toEqual({ key: 'ssn_mine', type: 'LOCK', ttl: 7, ttl_unit: 'DAYS' })
    expect((await validate(t)).redeemables[0]?.result).toMatchObject({ error: { key: 'quantity_exceeded' } })
    t.clock.advance(60_000)
    await t.engine.vouchers.releaseValidationSession('ONE', 'ssn_mine')
    const [session] = (await t.store.sessions.list()).data
    expect(session?.value.released_at).toBe('2026-01-15T10:01:00.000Z')
    expect((await validate(t)).redeemables[0]?.status).toBe('APPLICABLE')
    // Released: a second release finds no live lock.
    await expect(t.engine.vouchers.releaseValidationSession('ONE', 'ssn_mine')).rejects.toMatchObject({
      code: 404,
      key: 'not_found',
      resource_type: 'session',
      resource_id: 'ssn_mine',
    })
  })

  it('takes the voucher id as well as its code', async () => {
    const t = await setup()
    await validate(t, { type: 'LOCK', key: 'ssn_id' })
    const voucher = await t.engine.vouchers.get('ONE')
    await t.engine.vouchers.releaseValidationSession(voucher.id, 'ssn_id')
    expect((await validate(t)).valid).toBe(true)
  })

  it('404 for an unknown key, an unknown code, an expired lock; nothing written', async () => {
    const t = await setup()
    await validate(t, { type: 'LOCK', key: 'ssn_short', ttl: 1, ttl_unit: 'HOURS' })
    const before = await snapshot(t.store)
    await expect(t.engine.vouchers.releaseValidationSession('ONE', 'ssn_other')).rejects.toMatchObject({
      code: 404,
      resource_type: 'session',
    })
    await expect(t.engine.vouchers.releaseValidationSession('NOPE', 'ssn_short')).rejects.toMatchObject({
      code: 404,
      resource_type: 'voucher',
    })
    t.clock.advance(3_600_000)
    await expect(t.engine.vouchers.releaseValidationSession('ONE', 'ssn_short')).rejects.toMatchObject({ code: 404 })
    await expect(t.engine.vouchers.releaseValidationSession('ONE', '')).rejects.toMatchObject({
      code: 400,
      path: 'sessionKey',
    })
    expect(await snapshot(t.store)).toBe(before)
  })

  it('releases only the named code’s lock of a session that locked two codes', async () => {
    const t = await setup()
    await t.engine.vouchers.create({
      code: 'TWO',
      type: 'DISCOUNT_VOUCHER',
      discount: { type: 'AMOUNT', amount_off: 500, effect: 'APPLY_TO_ORDER' },
      redemption: { quantity: 1 },
    })
    await t.engine.validations.validateStackable({
      redeemables: [
        { object: 'voucher', id: 'ONE' },
        { object: 'voucher', id: 'TWO' },
      ],
      order: { amount: 5000 },
      session: { type: 'LOCK', key: 'ssn_pair' },
    })
    expect((await t.store.sessions.list({ where: { released_at: null } })).data).toHaveLength(2)
    await t.engine.vouchers.releaseValidationSession('TWO', 'ssn_pair')
    expect((await validate(t)).valid).toBe(false)
    const two = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'voucher', id: 'TWO' }],
      order: { amount: 5000 },
    })
    expect(two.valid).toBe(true)
  })

  it('reusing a key overwrites its lock instead of adding one', async () => {
    const t = await setup(2)
    await validate(t, { type: 'LOCK', key: 'ssn_same' })
    await validate(t, { type: 'LOCK', key: 'ssn_same', ttl: 3, ttl_unit: 'HOURS' })
    const sessions = (await t.store.sessions.list()).data
    expect(sessions).toHaveLength(1)
    expect(sessions[0]?.value).toMatchObject({ ttl: 3, ttl_unit: 'HOURS', expires_at: '2026-01-15T13:00:00.000Z' })
    // One of two uses is locked: another session still gets the second.
    expect((await validate(t, { type: 'LOCK', key: 'ssn_other' })).valid).toBe(true)
    expect((await validate(t)).valid).toBe(false)
  })
})

describe('a validation that locks nothing returns no session', () => {
  it('invalid in ALL mode: no session object, no lock row', async () => {
    const t = await setup()
    const result = await t.engine.validations.validateStackable({
      redeemables: [
        { object: 'voucher', id: 'ONE' },
        { object: 'voucher', id: 'NOPE' },
      ],
      order: { amount: 5000 },
      session: { type: 'LOCK', key: 'ssn_none' },
    })
    expect(result.valid).toBe(false)
    expect('session' in result).toBe(false)
    expect((await t.store.sessions.list()).data).toHaveLength(0)
  })

  it('nothing applicable (the only code is used up): no session', async () => {
    const t = await setup()
    await validate(t, { type: 'LOCK', key: 'ssn_first' })
    const second = await validate(t, { type: 'LOCK', key: 'ssn_second' })
    expect(second.valid).toBe(false)
    expect(second.session).toBeUndefined()
    expect((await t.store.sessions.list()).data.map((s) => s.value.key)).toEqual(['ssn_first'])
  })

  it('promotion tiers only (nothing to lock): valid, no session', async () => {
    const t = testEngine()
    const promotion = await t.engine.promotions.create({
      name: 'Tiers',
      promotion: { tiers: [{ name: '$10 off', action: { discount: { type: 'AMOUNT', amount_off: 1000 } } }] },
    })
    const result = await t.engine.validations.validateStackable({
      redeemables: [{ object: 'promotion_tier', id: promotion.promotion.tiers[0]?.id ?? '' }],
      order: { amount: 5000 },
      session: { type: 'LOCK' },
    })
    expect(result.valid).toBe(true)
    expect(result.session).toBeUndefined()
    expect((await t.store.sessions.list()).data).toHaveLength(0)
  })
})
