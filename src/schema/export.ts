import * as v from 'valibot'
import { TRANSACTION_FIELDS } from '../rules/voucher-transactions'
import { opt } from './common'

export const field = v.picklist(TRANSACTION_FIELDS, `must be one of ${TRANSACTION_FIELDS.join(', ')}`)

export const exportInput = v.object({
  order: opt(
    v.picklist(
      TRANSACTION_FIELDS.flatMap((f) => [f, `-${f}`]),
      'must be a field name, with - for descending',
    ),
  ),
  parameters: opt(
    v.object({
      fields: opt(v.pipe(v.array(field), v.minLength(1, 'must name at least one field'))),
      filters: opt(v.record(v.string(), v.unknown())),
    }),
  ),
})
