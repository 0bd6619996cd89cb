import { checkFormulaSyntax } from '../rules/formulas'
import { parseInstant } from '../rules/zoned-calendar'
import * as v from './valibot'

/** Optional in the exact sense: absent is fine, `undefined` written explicitly is not a value. */
export const opt = v.exactOptional

/** Money: an integer number of minor units, ≥ 0, safe. */
export const money = v.pipe(
  v.number(),
  v.safeInteger('must be a safe integer in minor units'),
  v.minValue(0, 'must be ≥ 0'),
)

export const positiveInt = v.pipe(v.number(), v.safeInteger('must be an integer'), v.minValue(1, 'must be ≥ 1'))
export const nonNegativeInt = v.pipe(v.number(), v.safeInteger('must be an integer'), v.minValue(0, 'must be ≥ 0'))

/** An integer that may come as a numeric string (form fields, the service interface's `"points": "5"`). */
export const intOrNumericString = v.pipe(
  v.union([v.number(), v.pipe(v.string(), v.regex(/^-?\d+$/, 'must be an integer or a numeric string'))]),
  v.transform((x) => Number(x)),
  v.safeInteger('must be a safe integer'),
)

export const nonEmptyString = v.pipe(v.string(), v.minLength(1, 'must not be empty'))

export const dateTime = v.pipe(
  v.string(),
  v.check((s) => !Number.isNaN(parseInstant(s)), 'must be an ISO 8601 date-time'),
)

/** A metadata object: string keys to any JSON values. An array is not one (valibot's record would take it). */
export const metadata = v.custom<Record<string, unknown>>(
  (m) => typeof m === 'object' && m !== null && !Array.isArray(m),
  'must be an object of key/value pairs',
)

const ISO_DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d+)?S)?)?$/
export const isoDuration = v.pipe(v.string(), v.regex(ISO_DURATION, 'must be an ISO 8601 duration such as P1D or PT1H'))

const HHMM = /^([01]\d|2[0-3]):[0-5]\d$/
export const validityTimeframe = v.strictObject({ duration: isoDuration, interval: isoDuration })
export const dayOfWeek = v.pipe(v.number(), v.integer(), v.minValue(0), v.maxValue(6))
export const validityHours = v.object({
  daily: v.array(
    v.object({
      start_time: v.pipe(v.string(), v.regex(HHMM, 'must be HH:MM')),
      expiration_time: v.pipe(v.string(), v.regex(HHMM, 'must be HH:MM')),
      days_of_week: v.array(dayOfWeek),
    }),
  ),
})

/** The validity fields shared by vouchers, campaigns, tiers and earning rules. */
export const validityEntries = {
  start_date: opt(v.nullable(dateTime)),
  expiration_date: opt(v.nullable(dateTime)),
  validity_timeframe: opt(v.nullable(validityTimeframe)),
  validity_day_of_week: opt(v.nullable(v.array(dayOfWeek))),
  validity_hours: opt(v.nullable(validityHours)),
  active: opt(v.nullable(v.boolean())),
}

export const limitParam = (max = 100) =>
  v.pipe(
    v.union([v.number(), v.pipe(v.string(), v.regex(/^\d+$/), v.transform(Number))]),
    v.number(),
    v.integer('must be an integer'),
    v.minValue(1, 'must be between 1 and 100'),
    v.maxValue(max, `must be between 1 and ${max}`),
  )
export const pageParam = limitParam(100)

/** `order` query values: the field names with an optional leading `-`. */
export const orderParam = (fields: readonly string[]) => v.picklist(fields.flatMap((f) => [f, `-${f}`]))

export function orderOf(order: string | undefined, fallback: string): { field: string; direction: 'asc' | 'desc' } {
  const o = order ?? fallback
  return o.startsWith('-') ? { field: o.slice(1), direction: 'desc' } : { field: o, direction: 'asc' }
}

/** A dynamic formula (docs/behaviour.md#formulas): refused when it does not parse, naming the position. */
export const formula = v.pipe(
  v.string(),
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return
    const problem = checkFormulaSyntax(dataset.value)
    if (problem) addIssue({ message: `is not a valid formula: ${problem.message} (at ${problem.position})` })
  }),
)
