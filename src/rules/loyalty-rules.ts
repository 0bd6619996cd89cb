/** The pure loyalty rules: earning, points expiry, the points ledger, tiers and rewards. */

export { type Duration, parseDuration } from './duration'
export * from './earned-points'
export * from './ledger'
export * from './points-expiry'
export * from './reward-costs'
export * from './tiers'
export type { CalendarPeriod, LocalDate } from './zoned-calendar'
export { formatLocalDate, localDate, periodBounds, startOfDay } from './zoned-calendar'
