export type * from './async-action'
export type * from './auth'
export type * from './campaign'
export type * from './common'
export type * from './customer'
export type * from './discount'
export { SHIPPING_PRODUCT_ID } from './discount'
export type * from './export'
export type * from './file'
export type * from './idempotency'
export type * from './loyalty'
export type * from './metadata-schema'
export type * from './order'
export type * from './product'
export type * from './promotion'
export type * from './publication'
export type * from './qualification'
export {
  QUALIFICATION_EXPAND,
  QUALIFICATION_FILTER_FIELDS,
  QUALIFICATION_SCENARIOS,
  QUALIFICATION_SORTING_RULES,
} from './qualification'
export type * from './redemption'
export type * from './stacking'
export { DEFAULT_STACKING_RULES } from './stacking'
export type * from './template'
export type * from './validation-rule'
export type * from './voucher'
