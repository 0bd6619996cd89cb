import type { DateTime } from './common'

/** An export: once `DONE` its `result` holds the file's url; before (or on an `ERROR`) it is null. */
export type Export = ExportBase &
  ({ status: 'SCHEDULED' | 'IN_PROGRESS' | 'ERROR'; result: null } | { status: 'DONE'; result: { url: string } })

export interface ExportBase {
  id: string
  object: 'export'
  created_at: DateTime
  channel: 'API' | 'WEBSITE'
  exported_object: 'voucher_transactions' | 'voucher' | 'redemption' | 'customer' | 'order' | 'publication'
  parameters: { order?: string; fields: string[]; filters: Record<string, unknown> }
  user_id: string | null
}
