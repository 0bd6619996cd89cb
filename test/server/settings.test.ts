import { describe, expect, it } from 'vitest'
import { DEFINITIONS, helpText } from '../../packages/server/src/setting-definitions'
import { readSettings, SettingError } from '../../packages/server/src/settings'

/** `promo-engine serve`'s settings as the CLI reads them: flags over the environment over defaults. */
describe('the server settings (packages/server/src/settings.ts)', () => {
  it('PROMO_DB_ASYNC_ACTIVITIES: off by default, on from the environment or the flag, the flag winning', () => {
    expect(readSettings([], {}).asyncActivities).toBe(false)
    for (const on of ['on', 'true', '1'])
      expect(readSettings([], { PROMO_DB_ASYNC_ACTIVITIES: on }).asyncActivities).toBe(true)
    for (const off of ['off', 'false', '0']) {
      expect(readSettings([], { PROMO_DB_ASYNC_ACTIVITIES: off }).asyncActivities).toBe(false)
    }
    expect(readSettings(['--db-async-activities', 'on'], {}).asyncActivities).toBe(true)
    expect(readSettings(['--db-async-activities=off'], { PROMO_DB_ASYNC_ACTIVITIES: 'on' }).asyncActivities).toBe(false)
    // An empty variable is unset, as for every other setting.
    expect(readSettings([], { PROMO_DB_ASYNC_ACTIVITIES: '' }).asyncActivities).toBe(false)
  })

  it('refuses any other value with one line naming where it came from', () => {
    expect(() => readSettings([], { PROMO_DB_ASYNC_ACTIVITIES: 'yes' })).toThrow(
      new SettingError('PROMO_DB_ASYNC_ACTIVITIES must be on or off; got "yes"'),
    )
    expect(() => readSettings(['--db-async-activities', 'sometimes'], {})).toThrow(
      new SettingError('--db-async-activities must be on or off; got "sometimes"'),
    )
  })

  it('--help lists every setting with its default, the new switch among them', () => {
    const help = helpText()
    for (const d of Object.values(DEFINITIONS)) {
      expect(help).toContain(d.flag === null ? d.env : `${d.flag}, ${d.env}`)
      if (d.fallback !== undefined) expect(help).toContain(`(default ${d.fallback})`)
    }
    expect(help).toMatch(/--db-async-activities, PROMO_DB_ASYNC_ACTIVITIES .*\(default off\)/)
  })

  it('PROMO_CHANGE_FEED_RETENTION_SECONDS: a week by default, 0 keeps the feed whole, a negative one refused', () => {
    expect(readSettings([], {}).changeFeedRetentionSeconds).toBe(604_800)
    expect(readSettings([], { PROMO_CHANGE_FEED_RETENTION_SECONDS: '0' }).changeFeedRetentionSeconds).toBe(0)
    expect(readSettings(['--change-feed-retention-seconds', '3600'], {}).changeFeedRetentionSeconds).toBe(3600)
    expect(() => readSettings([], { PROMO_CHANGE_FEED_RETENTION_SECONDS: '-1' })).toThrow(
      /PROMO_CHANGE_FEED_RETENTION_SECONDS must be a whole number from 0 to/,
    )
  })

  it('a pool size of 0 or above 1,000 is refused before anything starts', () => {
    expect(() => readSettings([], { PROMO_DB_POOL_SIZE: '0' })).toThrow(
      'PROMO_DB_POOL_SIZE must be a whole number from 1 to 1000; got "0"',
    )
    expect(() => readSettings(['--db-pool-size', '1001'], {})).toThrow('--db-pool-size must be a whole number')
  })

  it('admission: no limit by default (1,000 may wait once one is set); each bounded', () => {
    expect(readSettings([], {})).toMatchObject({ maxInFlight: 0, maxQueue: 1000 })
    expect(readSettings(['--max-in-flight', '6'], { PROMO_DB_POOL_SIZE: '4' })).toMatchObject({ maxInFlight: 6 })
    expect(readSettings(['--max-in-flight', '0', '--max-queue=0'], {})).toMatchObject({ maxInFlight: 0, maxQueue: 0 })
    expect(readSettings([], { PROMO_MAX_IN_FLIGHT: '16', PROMO_MAX_QUEUE: '50' })).toMatchObject({
      maxInFlight: 16,
      maxQueue: 50,
    })
    expect(() => readSettings([], { PROMO_MAX_IN_FLIGHT: '-1' })).toThrow(
      'PROMO_MAX_IN_FLIGHT must be a whole number from 0 to 10000; got "-1"',
    )
    expect(() => readSettings(['--max-queue', 'lots'], {})).toThrow('--max-queue must be a whole number')
  })
})
