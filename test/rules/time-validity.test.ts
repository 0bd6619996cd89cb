import { describe, expect, it } from 'vitest'
import {
  campaignValidityError,
  checkValidity,
  currentTimeframeWindow,
  promotionTierValidityError,
  voucherValidityError,
} from '../../src/rules/time-validity'

const at = (s: string): Date => new Date(s)

describe('checkValidity: flags and dates', () => {
  it('passes an empty validity', () => {
    expect(checkValidity({}, at('2024-05-01T00:00:00Z'))).toEqual({ ok: true })
  })

  it('reports disabled before anything else', () => {
    const v = checkValidity({ active: false, start_date: '2030-01-01T00:00:00Z' }, at('2024-05-01T00:00:00Z'))
    expect(v).toEqual({ ok: false, reason: 'disabled', detail: 'active is false' })
  })

  it('is not started before start_date and expired after expiration_date, inclusive bounds', () => {
    const validity = { start_date: '2024-05-01T00:00:00Z', expiration_date: '2024-05-31T23:59:59Z' }
    expect(checkValidity(validity, at('2024-04-30T23:59:59Z'))).toMatchObject({ ok: false, reason: 'not_started' })
    expect(checkValidity(validity, at('2024-05-01T00:00:00Z'))).toEqual({ ok: true })
    expect(checkValidity(validity, at('2024-05-31T23:59:59Z'))).toEqual({ ok: true })
    expect(checkValidity(validity, at('2024-06-01T00:00:00Z'))).toEqual({
      ok: false,
      reason: 'expired',
      detail: 'expired at 2024-05-31T23:59:59Z',
    })
  })
})

describe('checkValidity: timeframe', () => {
  const hourEveryDay = {
    start_date: '2024-01-01T00:00:00Z',
    validity_timeframe: { interval: 'P1D', duration: 'PT1H' },
  }

  it('is open for the first hour of each day counted from the start', () => {
    expect(checkValidity(hourEveryDay, at('2024-01-05T00:30:00Z'))).toEqual({ ok: true })
    expect(checkValidity(hourEveryDay, at('2024-01-05T00:59:59Z'))).toEqual({ ok: true })
    expect(checkValidity(hourEveryDay, at('2024-01-05T01:00:00Z'))).toMatchObject({
      ok: false,
      reason: 'outside_timeframe',
      detail: 'outside the timeframe: last window 2024-01-05T00:00:00.000Z to 2024-01-05T01:00:00.000Z',
    })
  })

  it('counts monthly windows from the anchor with month-end clamping', () => {
    const anchor = at('2024-01-31T00:00:00Z')
    expect(currentTimeframeWindow(anchor, 'P1M', 'P1D', at('2024-04-30T05:00:00Z'))).toEqual({
      start: at('2024-04-30T00:00:00Z'),
      end: at('2024-05-01T00:00:00Z'),
    })
    expect(currentTimeframeWindow(anchor, 'P1M', 'P1D', at('2024-03-31T12:00:00Z'))?.start).toEqual(
      at('2024-03-31T00:00:00Z'),
    )
    expect(currentTimeframeWindow(anchor, 'P1M', 'P1D', at('2024-01-30T00:00:00Z'))).toBeNull()
  })

  it('anchors on timeframeAnchor when there is no start_date', () => {
    const validity = { validity_timeframe: { interval: 'PT2H', duration: 'PT30M' } }
    const options = { timeframeAnchor: '2024-01-01T00:00:00Z' }
    expect(checkValidity(validity, at('2024-01-01T04:10:00Z'), options)).toEqual({ ok: true })
    expect(checkValidity(validity, at('2024-01-01T05:10:00Z'), options)).toMatchObject({ reason: 'outside_timeframe' })
    // Without an anchor the timeframe cannot be placed and is not applied.
    expect(checkValidity(validity, at('2024-01-01T05:10:00Z'))).toEqual({ ok: true })
  })

  it('keeps daily windows on local midnight across DST in Europe/Warsaw', () => {
    // Anchor 2024-03-30 00:00 Warsaw (UTC+1); the next window starts 2024-03-31 00:00 Warsaw (still UTC+1 at midnight).
    const validity = { start_date: '2024-03-29T23:00:00Z', validity_timeframe: { interval: 'P1D', duration: 'PT3H' } }
    const opts = { timeZone: 'Europe/Warsaw' }
    // 2024-04-01 00:30 Warsaw = 2024-03-31T22:30Z (UTC+2).
    expect(checkValidity(validity, at('2024-03-31T22:30:00Z'), opts)).toEqual({ ok: true })
    // Same instant in UTC: 22:30, outside 00:00-03:00.
    expect(checkValidity(validity, at('2024-03-31T22:30:00Z'))).toMatchObject({ reason: 'outside_timeframe' })
  })
})

describe('checkValidity: days of week and hours in the engine time zone', () => {
  it('reads the day of week in the given zone (0 = Sunday)', () => {
    // 2024-03-03T23:30Z is Sunday in UTC and Monday 00:30 in Warsaw.
    const validity = { validity_day_of_week: [1] }
    expect(checkValidity(validity, at('2024-03-03T23:30:00Z'), { timeZone: 'Europe/Warsaw' })).toEqual({ ok: true })
    expect(checkValidity(validity, at('2024-03-03T23:30:00Z'))).toEqual({
      ok: false,
      reason: 'outside_day_of_week',
      detail: 'Sunday (0) in UTC is not one of [1]',
    })
  })

  const sundayDaytime = {
    validity_hours: { daily: [{ start_time: '09:00', expiration_time: '17:00', days_of_week: [0] }] },
  }

  it('applies daily hours in local time on the DST day (Warsaw, 2024-03-31)', () => {
    // 07:30Z = 09:30 Warsaw (UTC+2 after 02:00).
    expect(checkValidity(sundayDaytime, at('2024-03-31T07:30:00Z'), { timeZone: 'Europe/Warsaw' })).toEqual({
      ok: true,
    })
    expect(checkValidity(sundayDaytime, at('2024-03-31T07:30:00Z'))).toMatchObject({ reason: 'outside_hours' })
    // 06:30Z = 08:30 Warsaw: before opening.
    expect(checkValidity(sundayDaytime, at('2024-03-31T06:30:00Z'), { timeZone: 'Europe/Warsaw' })).toEqual({
      ok: false,
      reason: 'outside_hours',
      detail: 'Sunday 08:30 in Europe/Warsaw is outside 09:00-17:00 on [0]',
    })
    // 15:00Z = 17:00 Warsaw: the end is exclusive.
    expect(checkValidity(sundayDaytime, at('2024-03-31T15:00:00Z'), { timeZone: 'Europe/Warsaw' })).toMatchObject({
      reason: 'outside_hours',
    })
  })

  it('applies the winter offset in January (Warsaw UTC+1)', () => {
    // 2024-01-07 is a Sunday; 08:30Z = 09:30 Warsaw.
    expect(checkValidity(sundayDaytime, at('2024-01-07T08:30:00Z'), { timeZone: 'Europe/Warsaw' })).toEqual({
      ok: true,
    })
    // 07:30Z = 08:30 Warsaw.
    expect(checkValidity(sundayDaytime, at('2024-01-07T07:30:00Z'), { timeZone: 'Europe/Warsaw' })).toMatchObject({
      reason: 'outside_hours',
    })
  })

  it('runs a window past midnight into the next day', () => {
    const fridayNight = {
      validity_hours: { daily: [{ start_time: '22:00', expiration_time: '02:00', days_of_week: [5] }] },
    }
    // 2024-03-08 is a Friday.
    expect(checkValidity(fridayNight, at('2024-03-08T23:00:00Z'))).toEqual({ ok: true })
    expect(checkValidity(fridayNight, at('2024-03-09T01:59:00Z'))).toEqual({ ok: true })
    expect(checkValidity(fridayNight, at('2024-03-09T02:00:00Z'))).toMatchObject({ reason: 'outside_hours' })
    expect(checkValidity(fridayNight, at('2024-03-09T23:00:00Z'))).toMatchObject({ reason: 'outside_hours' })
  })

  it('accepts any of several periods', () => {
    const split = {
      validity_hours: {
        daily: [
          { start_time: '08:00', expiration_time: '10:00', days_of_week: [1, 2, 3, 4, 5] },
          { start_time: '18:00', expiration_time: '20:00', days_of_week: [1, 2, 3, 4, 5] },
        ],
      },
    }
    // 2024-03-04 is a Monday.
    expect(checkValidity(split, at('2024-03-04T19:00:00Z'))).toEqual({ ok: true })
    expect(checkValidity(split, at('2024-03-04T12:00:00Z'))).toMatchObject({ reason: 'outside_hours' })
    expect(checkValidity(split, at('2024-03-09T09:00:00Z'))).toMatchObject({ reason: 'outside_hours' })
  })
})

describe('hosted error keys', () => {
  it('maps voucher reasons', () => {
    expect(voucherValidityError('disabled', 'CODE1')).toEqual({
      code: 400,
      key: 'voucher_disabled',
      message: 'voucher is disabled',
      details: 'CODE1',
    })
    expect(voucherValidityError('not_started', 'CODE1').key).toBe('voucher_not_active')
    expect(voucherValidityError('expired', 'CODE1')).toMatchObject({
      key: 'voucher_expired',
      message: 'voucher expired',
    })
    expect(voucherValidityError('outside_timeframe', 'CODE14')).toEqual({
      code: 400,
      key: 'voucher_not_active_now',
      message: 'voucher not active now',
      details: 'CODE14',
    })
    expect(voucherValidityError('outside_day_of_week', 'C').key).toBe('voucher_not_active_now')
    expect(voucherValidityError('outside_hours', 'C').key).toBe('voucher_not_active_now')
  })

  it('maps promotion tier reasons', () => {
    expect(promotionTierValidityError('disabled', 'promo_1')).toEqual({
      code: 400,
      key: 'promotion_inactive',
      message: 'Inactive Promotion',
      details: 'Promotion Tier with id: promo_1 is disabled.',
    })
    expect(promotionTierValidityError('expired', 'promo_1').key).toBe('promotion_not_active_now')
    expect(promotionTierValidityError('outside_hours', 'promo_1').key).toBe('promotion_not_active_now')
  })

  it('maps campaign reasons to campaign_not_active with the deciding check in details', () => {
    expect(campaignValidityError('expired', 'camp_1')).toEqual({
      code: 400,
      key: 'campaign_not_active',
      message: 'campaign not active',
      details: 'Campaign with id: camp_1 has expired.',
    })
  })
})
