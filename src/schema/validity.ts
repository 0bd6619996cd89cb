import { EngineError } from '../errors'
import type { Validity } from '../model/common'

/**
 * The cross-field rules of the validity fields (spec "Validity Timeframe"): a timeframe is counted
 * from `start_date`, so it needs one (given here or inherited from the campaign); an expiration
 * before the start would make the object never valid, which is always a mistake.
 */
export function checkValidity(
  input: Pick<Validity, 'start_date' | 'expiration_date' | 'validity_timeframe'>,
  options: { prefix?: string; inheritedStartDate?: string | null | undefined } = {},
): void {
  const at = (field: string) => (options.prefix ? `${options.prefix}.${field}` : field)
  const start = input.start_date ?? options.inheritedStartDate ?? null
  if (input.validity_timeframe && !start) {
    throw EngineError.invalid(at('start_date'), 'is required when validity_timeframe is given')
  }
  if (input.start_date && input.expiration_date && Date.parse(input.expiration_date) < Date.parse(input.start_date)) {
    throw EngineError.invalid(at('expiration_date'), 'must not be before start_date')
  }
}
