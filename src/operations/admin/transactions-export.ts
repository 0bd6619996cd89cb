import { EngineError } from '../../errors'
import type { Redemption, RedemptionRollback, StoredRedemption } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import { matchesFilters } from '../../rules/match-filters'
import { isTransactionField, redemptionRow, rollbackRow } from '../../rules/voucher-transactions'
import { withOrders } from '../shop/order-records'
import { EXPORT_CHUNK_ROWS, exportHandler, filtersOf } from './export-steps'

/** Where a transactions export stands: the last redemption and the last rollback written. */
interface TransactionsCursor {
  redemptions: string | null
  rollbacks: string | null
}

type Transaction = Redemption | RedemptionRollback

/**
 * The campaign's redemptions and rollbacks, each read from its declared index by campaign
 * (`related_object_parent_id`, sorted by date) and merged by date then id, the order both indexes
 * keep; the vouchers the rows name are read a page at a time alongside.
 */
export const transactionsExportHandler = exportHandler(async (tx, exp) => {
  const campaignId = (exp.parameters.filters.campaign_id as { conditions: { $in: string[] } }).conditions.$in[0] ?? ''
  if (!(await tx.store.campaigns.get(campaignId))) throw EngineError.notFound('campaign', campaignId)
  const direction = exp.parameters.order === 'created_at' ? 'asc' : 'desc'
  const filters = filtersOf(exp.parameters.filters)
  const fields = exp.parameters.fields.filter(isTransactionField)
  const vouchers = new Map<string, Voucher>()
  const stream = (collection: 'redemptions' | 'redemption_rollbacks', after: string | null) => {
    let buffer: Transaction[] = []
    let at = 0
    let more = true
    let readAfter = after
    let taken = after
    return {
      async peek(): Promise<Transaction | undefined> {
        while (at === buffer.length && more) {
          const page = await tx.store[collection].list({
            where: { related_object_parent_id: campaignId },
            order: { field: 'date', direction },
            limit: EXPORT_CHUNK_ROWS,
            count: false,
            ...(readAfter === null ? {} : { starting_after_id: readAfter }),
          })
          // The implementation joins either kind; the overloads name one at a time.
          buffer = (await withOrders(tx.store, page.data.map((s) => s.value) as StoredRedemption[])) as Transaction[]
          at = 0
          more = page.has_more
          readAfter = buffer.at(-1)?.id ?? readAfter
          const missing = [...new Set(buffer.map((t) => t.related_object_id))].filter((id) => !vouchers.has(id))
          for (const { value } of await tx.store.vouchers.getMany(missing)) vouchers.set(value.id, value)
        }
        return buffer[at]
      },
      take(): void {
        taken = buffer[at++]?.id ?? taken
      },
      get cursor() {
        return taken
      },
    }
  }
  const before = (a: Transaction, b: Transaction) => {
    const order = a.date === b.date ? (a.id < b.id ? -1 : 1) : a.date < b.date ? -1 : 1
    return direction === 'asc' ? order < 0 : order > 0
  }
  return {
    header: fields,
    async next(cursor, limit) {
      const from = (cursor as TransactionsCursor | undefined) ?? { redemptions: null, rollbacks: null }
      const redemptions = stream('redemptions', from.redemptions)
      const rollbacks = stream('redemption_rollbacks', from.rollbacks)
      const rows: unknown[][] = []
      for (;;) {
        const r = await redemptions.peek()
        const rb = await rollbacks.peek()
        if (!r && !rb) return { rows, cursor: null }
        const next = r && (!rb || before(r, rb)) ? redemptions : rollbacks
        const item = (next === redemptions ? r : rb) as Transaction
        next.take()
        const voucher = item.related_object_type === 'voucher' ? vouchers.get(item.related_object_id) : undefined
        if (voucher) {
          const row = item.object === 'redemption' ? redemptionRow(item, voucher) : rollbackRow(item, voucher)
          if (matchesFilters(row, filters)) rows.push(fields.map((f) => row[f]))
        }
        if (rows.length === limit) {
          return { rows, cursor: { redemptions: redemptions.cursor, rollbacks: rollbacks.cursor } }
        }
      }
    },
  }
})
