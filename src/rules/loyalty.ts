/** The pure loyalty rules: earning, points expiry, the points ledger, tiers and rewards. */
export * from './earning'
export * from './ledger'
export * from './points-expiry'
export * from './rewards'
export * from './tiers'
export type { CalendarPeriod, LocalDate } from './zoned-calendar'
export { formatLocalDate, localDate, parseDuration, periodBounds, startOfDay } from './zoned-calendar'
