import { TRANSACTION_ORDERS } from '../rules/voucher-transactions'
import { opt } from './common'
import * as v from './valibot'

// Any name: one the export does not have is `invalid_export_fields`, checked by the operation
// (docs/behaviour.md#exports).
export const field = v.string()

export const exportInput = v.object({
  // The export pages through the store by date (docs/http.md#asynchronous-actions-and-export-files).
  order: opt(v.picklist(TRANSACTION_ORDERS, `must be one of ${TRANSACTION_ORDERS.join(', ')}`)),
  parameters: opt(
    v.object({
      fields: opt(v.pipe(v.array(field), v.minLength(1, 'must name at least one field'))),
      filters: opt(v.record(v.string(), v.unknown())),
    }),
  ),
})
