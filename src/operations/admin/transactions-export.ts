import { EngineError } from '../../errors'
import type { StoredRedemption } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import { matchesFilters } from '../../rules/match-filters'
import {
  balanceMove,
  type CardMovement,
  cardBalance,
  cardTransactionRow,
  earlier,
  isTransactionField,
  redemptionRow,
  rollbackRow,
  type TransactionRow,
} from '../../rules/voucher-transactions'
import type { Store } from '../../storage/ports'
import { withOrders } from '../shop/order-records'
import { EXPORT_CHUNK_ROWS, exportHandler, filtersOf } from './export-steps'

/**
 * Where a transactions export stands: the last redemption, rollback and card transaction written, and
 * (when the `balance` column is asked) each card's balance as the rows written so far leave it: the
 * balance after the last row written (oldest first), or before it (newest first). Cursors stored
 * before card transactions or balances were exported lack those fields and start them empty.
 */
interface TransactionsCursor {
  redemptions: string | null
  rollbacks: string | null
  movements?: string | null
  balances?: Record<string, number>
}

/** The three records a campaign's transactions are made of, each read from its declared index. */
const TRANSACTION_SOURCES = {
  redemptions: {
    collection: 'redemptions',
    campaign: 'related_object_parent_id',
    card: 'related_object_id',
    date: 'date',
  },
  rollbacks: {
    collection: 'redemption_rollbacks',
    campaign: 'related_object_parent_id',
    card: 'related_object_id',
    date: 'date',
  },
  movements: { collection: 'card_transactions', campaign: 'campaign_id', card: 'voucher_id', date: 'created_at' },
} as const

type TransactionSource = keyof typeof TRANSACTION_SOURCES

/** A page of one source's records of a campaign or of a card, in the asked order; redemptions and rollbacks with their orders joined. */
async function transactionPage(
  store: Store,
  source: TransactionSource,
  by: 'campaign' | 'card',
  id: string,
  direction: 'asc' | 'desc',
  after: string | null,
): Promise<{ data: CardMovement[]; has_more: boolean }> {
  const s = TRANSACTION_SOURCES[source]
  const page = await store[s.collection].list({
    where: { [s[by]]: id },
    order: { field: s.date, direction },
    limit: EXPORT_CHUNK_ROWS,
    count: false,
    ...(after === null ? {} : { starting_after_id: after }),
  })
  const values = page.data.map((r) => r.value)
  // The implementation joins either kind; the overloads name one at a time.
  const data = source === 'movements' ? values : await withOrders(store, values as StoredRedemption[])
  return { data: data as CardMovement[], has_more: page.has_more }
}

/**
 * A card's balance right after `item`: its balance now less what every later movement of the card
 * moved (read newest first from the card's indexes, down to `item`). Exact whatever committed since
 * the export began, since it counts from the card as it is.
 */
async function balanceAfter(store: Store, voucher: Voucher, item: CardMovement): Promise<number> {
  let balance = cardBalance(voucher) ?? 0
  for (const source of Object.keys(TRANSACTION_SOURCES) as TransactionSource[]) {
    let after: string | null = null
    for (;;) {
      const page = await transactionPage(store, source, 'card', voucher.id, 'desc', after)
      const later = page.data.filter((m) => earlier(item, m))
      for (const m of later) balance -= balanceMove(m)
      if (!page.has_more || later.length < page.data.length) break
      after = page.data.at(-1)?.id ?? null
    }
  }
  return balance
}

/**
 * The campaign's redemptions, rollbacks and card transactions, each read from its declared index by
 * campaign (sorted by date) and merged by date then id, the order the indexes keep; the vouchers the
 * rows name are read a page at a time alongside. A card's `balance` after each row runs from the first
 * row of the card the export meets (`balanceAfter`) along the card's later rows.
 */
export const transactionsExportHandler = exportHandler(async (tx, exp) => {
  const campaignId = (exp.parameters.filters.campaign_id as { conditions: { $in: string[] } }).conditions.$in[0] ?? ''
  if (!(await tx.store.campaigns.get(campaignId))) throw EngineError.notFound('campaign', campaignId)
  const direction = exp.parameters.order === 'created_at' ? 'asc' : 'desc'
  const filters = filtersOf(exp.parameters.filters)
  const fields = exp.parameters.fields.filter(isTransactionField)
  const withBalance = fields.includes('balance') || 'balance' in filters.fields
  const vouchers = new Map<string, Voucher>()
  const stream = (source: TransactionSource, after: string | null) => {
    let buffer: CardMovement[] = []
    let at = 0
    let more = true
    let readAfter = after
    let taken = after
    return {
      async peek(): Promise<CardMovement | undefined> {
        while (at === buffer.length && more) {
          const page = await transactionPage(tx.store, source, 'campaign', campaignId, direction, readAfter)
          buffer = page.data
          at = 0
          more = page.has_more
          readAfter = buffer.at(-1)?.id ?? readAfter
          const ids = buffer.map((t) => ('voucher_id' in t ? t.voucher_id : t.related_object_id))
          const missing = [...new Set(ids)].filter((id) => !vouchers.has(id))
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
  const before = (a: CardMovement, b: CardMovement) => (direction === 'asc' ? earlier(a, b) : earlier(b, a))
  const rowOf = (item: CardMovement, voucher: Voucher): TransactionRow =>
    !('object' in item)
      ? cardTransactionRow(item, voucher)
      : item.object === 'redemption'
        ? redemptionRow(item, voucher)
        : rollbackRow(item, voucher)
  return {
    header: fields,
    async next(cursor, limit) {
      const from = (cursor as TransactionsCursor | undefined) ?? { redemptions: null, rollbacks: null }
      const balances = { ...(from.balances ?? {}) }
      const streams = {
        redemptions: stream('redemptions', from.redemptions),
        rollbacks: stream('rollbacks', from.rollbacks),
        movements: stream('movements', from.movements ?? null),
      }
      const rows: unknown[][] = []
      for (;;) {
        let next: (typeof streams)[TransactionSource] | undefined
        let item: CardMovement | undefined
        for (const s of Object.values(streams)) {
          const candidate = await s.peek()
          if (candidate && (!item || before(candidate, item))) {
            next = s
            item = candidate
          }
        }
        if (!next || !item) return { rows, cursor: null }
        next.take()
        const voucherId = 'voucher_id' in item ? item.voucher_id : item.related_object_id
        const voucher =
          'voucher_id' in item || item.related_object_type === 'voucher' ? vouchers.get(voucherId) : undefined
        if (voucher) {
          const row = rowOf(item, voucher)
          if (withBalance && cardBalance(voucher) !== null) {
            const known = balances[voucher.id]
            if (direction === 'desc') {
              row.balance = known ?? (await balanceAfter(tx.store, voucher, item))
              balances[voucher.id] = (row.balance as number) - balanceMove(item)
            } else {
              row.balance =
                known === undefined ? await balanceAfter(tx.store, voucher, item) : known + balanceMove(item)
              balances[voucher.id] = row.balance as number
            }
          }
          if (matchesFilters(row, filters)) rows.push(fields.map((f) => row[f]))
        }
        if (rows.length === limit) {
          const at: TransactionsCursor = {
            redemptions: streams.redemptions.cursor,
            rollbacks: streams.rollbacks.cursor,
            movements: streams.movements.cursor,
            ...(withBalance ? { balances } : {}),
          }
          return { rows, cursor: at }
        }
      }
    },
  }
})
