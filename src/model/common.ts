/** Shared wire shapes: snake_case exactly as the service interface names them. */
export type Metadata = Record<string, unknown>

/** ISO 8601 date-time string. */
export type DateTime = string

/** The service interface's list envelope. `data_ref` names the property that holds the array. */
export type ListEnvelope<K extends string, T> = {
  object: 'list'
  data_ref: K
  total?: number
  has_more?: boolean
  more_starting_after?: string | null
} & { [P in K]: T[] }

export interface ValidityTimeframe {
  /** ISO 8601 duration the code stays valid in each interval, e.g. `PT1H`. */
  duration: string
  /** ISO 8601 duration between the starts of two windows, e.g. `P1D`. */
  interval: string
}

export interface ValidityHoursDaily {
  start_time: string
  expiration_time: string
  days_of_week: number[]
}

export interface ValidityHours {
  daily: ValidityHoursDaily[]
}

/** The validity fields shared by vouchers, campaigns, promotion tiers, earning rules. */
export interface Validity {
  start_date?: DateTime | null
  expiration_date?: DateTime | null
  validity_timeframe?: ValidityTimeframe | null
  validity_day_of_week?: number[] | null
  validity_hours?: ValidityHours | null
  active?: boolean | null
}

export interface Category {
  id: string
  name: string
  hierarchy: number
  object: 'category'
  created_at: DateTime
  updated_at: DateTime | null
  stacking_rules_type?: 'JOINT' | 'EXCLUSIVE'
}

export interface SimpleCustomer {
  id: string
  source_id?: string | null
  name?: string | null
  email?: string | null
  metadata?: Metadata
  object: 'customer'
}
