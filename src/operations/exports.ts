import * as v from 'valibot'
import type { CallOptions } from '../call-options'
import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { Campaign } from '../model/campaign'
import type { AsyncAction, Export } from '../model/misc'
import type { StoredRedemption } from '../model/redemption'
import type { CollectionName, Store, Stored } from '../ports'
import { csvLines } from '../rules/csv'
import { FILTER_OPERATORS, type FilterConditions, type Filters, matchesFilters } from '../rules/filters'
import {
  DEFAULT_TRANSACTION_FIELDS,
  DEFAULT_TRANSACTION_ORDER,
  isTransactionField,
  selectTransactions,
  TRANSACTION_FIELDS,
  transactionRows,
} from '../rules/voucher-transactions'
import { nonEmptyString, opt } from '../schema/common'
import { exportInput } from '../schema/export'
import { parseListFilters } from '../schema/list-filters'
import { parse } from '../schema/parse'
import type { ExportsCreateCampaignTransactionsExportParams } from '../schema/requests'
import type { AsyncHandler } from './async-actions'
import { enqueue } from './async-actions'
import { type Context, must, mutate, type Tx } from './context'
import { storeFile } from './files'
import { withOrders } from './stored-orders'

/** The async action type that writes a campaign transactions CSV. */
export const TRANSACTIONS_EXPORT_ACTION = 'export.voucher_transactions'

/** One field's filter of a `POST /v1/exports` request: `{conditions: {operator: values}}`. */
const conditionValue = v.union([v.string(), v.number(), v.boolean(), v.null()])
const fieldFilter = v.object({
  conditions: v.pipe(
    v.record(
      v.picklist(FILTER_OPERATORS, `must be one of ${FILTER_OPERATORS.join(', ')}`),
      v.union([v.array(conditionValue), conditionValue]),
    ),
    v.check((c) => Object.keys(c).length > 0, 'must have at least one operator'),
  ),
})

/**
 * Normalises request filters to the stored shape: `junction: 'AND'` (the campaign condition must
 * always hold, so `OR` is refused), each field's operator values as arrays, and the campaign's
 * `campaign_id` `$in` condition, which replaces any `$in` the caller gave for that field.
 */
function normaliseFilters(raw: unknown, campaignId: string): Filters {
  const filters = parseListFilters(raw, TRANSACTION_FIELDS, 'parameters.filters')
  if (filters.junction !== 'AND') {
    throw EngineError.invalid('parameters.filters.junction', 'must be AND (the campaign condition always applies)')
  }
  filters.fields.campaign_id = { ...filters.fields.campaign_id, $in: [campaignId] }
  return filters
}

/** One field's `{conditions: {operator: values}}`, each operator's values as an array. */
function fieldConditions(value: unknown, path: string): FilterConditions {
  const { conditions } = parse(fieldFilter, value, path)
  const normal: FilterConditions = {}
  for (const [op, values] of Object.entries(conditions) as [keyof FilterConditions, unknown][]) {
    normal[op] = (Array.isArray(values) ? values : [values]) as (string | number | boolean | null)[]
  }
  return normal
}

/** The objects `POST /v1/exports` exports: the collection read and the columns given when none are asked. */
const EXPORTABLE = {
  voucher: {
    collection: 'vouchers',
    fields: ['code', 'type', 'campaign', 'active', 'start_date', 'expiration_date', 'created_at'],
  },
  redemption: {
    collection: 'redemptions',
    fields: ['id', 'date', 'result', 'status', 'related_object_type', 'related_object_id', 'customer_id'],
  },
  customer: { collection: 'customers', fields: ['id', 'source_id', 'name', 'email', 'created_at'] },
  order: { collection: 'orders', fields: ['id', 'source_id', 'status', 'amount', 'total_amount', 'created_at'] },
  publication: { collection: 'publications', fields: ['id', 'voucher_id', 'customer_id', 'source_id', 'created_at'] },
} as const satisfies Record<string, { collection: CollectionName; fields: readonly string[] }>

type ExportableObject = keyof typeof EXPORTABLE
const EXPORTABLE_OBJECTS = Object.keys(EXPORTABLE) as ExportableObject[]

/** The async action type that writes a `POST /v1/exports` CSV. */
export const OBJECTS_EXPORT_ACTION = 'export.objects'

const EXPORT_ORDERS = ['created_at', '-created_at', 'id', '-id'] as const

/** A column: a field of the exported object, dotted to reach a nested one (`metadata.region`). */
const columnName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z_][\w]*(\.[\w]+)*$/, 'must be a field name (dotted for nested fields)'),
)

const objectsExportInput = v.object({
  exported_object: v.picklist(EXPORTABLE_OBJECTS, `must be one of ${EXPORTABLE_OBJECTS.join(', ')}`),
  parameters: opt(
    v.object({
      // The orders every collection is kept in (declared indexes), so an export reads pages, never scans.
      order: opt(v.picklist(EXPORT_ORDERS, `must be one of ${EXPORT_ORDERS.join(', ')}`)),
      fields: opt(v.pipe(v.array(columnName), v.minLength(1, 'must name at least one field'))),
      filters: opt(v.record(v.string(), v.unknown())),
    }),
  ),
})

/** `POST /v1/exports`: the object exported, the columns, the order and filters. */
export type ExportsCreateParams = v.InferInput<typeof objectsExportInput>

/** Any field may be filtered; the junction may be AND or OR. */
function normaliseObjectFilters(raw: Record<string, unknown>): Filters {
  const fields: Record<string, FilterConditions> = {}
  let junction: Filters['junction'] = 'AND'
  for (const [key, value] of Object.entries(raw)) {
    const path = `parameters.filters.${key}`
    if (key === 'junction') {
      const j = typeof value === 'string' ? value.toUpperCase() : ''
      if (j !== 'AND' && j !== 'OR') throw EngineError.invalid(path, 'must be AND or OR')
      junction = j
      continue
    }
    parse(columnName, key, path)
    fields[key] = fieldConditions(value, path)
  }
  return { junction, fields }
}

const fieldOf = (entity: unknown, field: string): unknown =>
  field
    .split('.')
    .reduce<unknown>(
      (o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
      entity,
    )

/** Entities read per store call (and rows per file chunk) when an object export runs. */
const EXPORT_PAGE = 200

/**
 * Writes a `POST /v1/exports` CSV: the collection read a cursor page at a time in the asked order, each
 * page's matching rows one chunk of the file, then the export `DONE` with the file's url.
 */
export const objectsExportHandler: AsyncHandler = {
  async run(tx, action) {
    const { export_id } = action.payload as { export_id: string }
    const stored = await must(tx.ctx, 'exports', export_id, 'export')
    const exp = stored.value
    const { collection } = EXPORTABLE[exp.exported_object as ExportableObject]
    const order = exp.parameters.order ?? '-created_at'
    const desc = order.startsWith('-')
    const filters = filtersOf(exp.parameters.filters)
    const fields = exp.parameters.fields
    const chunks = [csvLines([fields])]
    let rows = 0
    let after: string | undefined
    for (;;) {
      const page = await tx.store[collection].list({
        order: { field: desc ? order.slice(1) : order, direction: desc ? 'desc' : 'asc' },
        limit: EXPORT_PAGE,
        count: false,
        ...(after === undefined ? {} : { starting_after_id: after }),
      })
      const values = (await joined(tx.store, collection, page.data)).filter((e) =>
        matchesFilters(Object.fromEntries(Object.keys(filters.fields).map((f) => [f, fieldOf(e, f)])), filters),
      )
      chunks.push(csvLines(values.map((e) => fields.map((f) => fieldOf(e, f)))))
      rows += values.length
      if (!page.has_more || page.more_starting_after === null) break
      after = page.more_starting_after
    }
    const file = storeFile(tx, { name: `${exp.exported_object}_${exp.id}.csv`, content_type: 'text/csv', chunks })
    tx.update('exports', stored, { ...exp, status: 'DONE', result: { url: file.url } })
    return { export_id: exp.id, file_id: file.id, url: file.url, rows }
  },

  onFailure: exportFailed,
}

/** A page of an export's collection as the interface shows it: redemptions with their orders joined in. */
async function joined(store: Store, collection: CollectionName, page: readonly Stored<unknown>[]): Promise<unknown[]> {
  const values = page.map((s) => s.value)
  return collection === 'redemptions' ? withOrders(store, values as StoredRedemption[]) : values
}

function storedFilters(filters: Filters): Record<string, unknown> {
  const out: Record<string, unknown> = { junction: filters.junction }
  for (const [key, conditions] of Object.entries(filters.fields)) out[key] = { conditions }
  return out
}

function filtersOf(stored: Record<string, unknown>): Filters {
  const fields: Record<string, FilterConditions> = {}
  for (const [key, value] of Object.entries(stored)) {
    if (key !== 'junction') fields[key] = (value as { conditions: FilterConditions }).conditions
  }
  return { junction: stored.junction === 'OR' ? 'OR' : 'AND', fields }
}

async function findCampaign(tx: Tx | Context, idOrName: string): Promise<Stored<Campaign> | undefined> {
  return (await tx.store.campaigns.get(idOrName)) ?? (await tx.store.campaigns.findBy('name', idOrName))
}

/** Rows written per file chunk. */
const ROWS_PER_CHUNK = 500

/** A CSV as file chunks: the header, then a page of rows each. */
function* csvPages(header: readonly string[], rows: readonly (readonly unknown[])[]): Generator<string> {
  yield csvLines([header])
  for (let i = 0; i < rows.length; i += ROWS_PER_CHUNK) yield csvLines(rows.slice(i, i + ROWS_PER_CHUNK))
}

/** Writes the CSV of the export's campaign, then marks the export `DONE` with the file's url. */
export const transactionsExportHandler: AsyncHandler = {
  async run(tx, action) {
    const { export_id } = action.payload as { export_id: string }
    const stored = await tx.store.exports.get(export_id)
    if (!stored) throw EngineError.notFound('export', export_id)
    const exp = stored.value
    const campaignId = (exp.parameters.filters.campaign_id as { conditions: { $in: string[] } }).conditions.$in[0] ?? ''
    if (!(await tx.store.campaigns.get(campaignId))) throw EngineError.notFound('campaign', campaignId)

    const vouchers = (await tx.store.vouchers.list({ where: { campaign_id: campaignId } })).data.map((s) => s.value)
    const redemptions = await withOrders(
      tx.store,
      (await tx.store.redemptions.list({ where: { related_object_id: { in: vouchers.map((x) => x.id) } } })).data
        .map((s) => s.value)
        .filter((r) => r.related_object_type === 'voucher'),
    )
    const rollbacks = await withOrders(
      tx.store,
      (
        await tx.store.redemption_rollbacks.list({ where: { redemption: { in: redemptions.map((r) => r.id) } } })
      ).data.map((s) => s.value),
    )

    const rows = selectTransactions(
      transactionRows(vouchers, redemptions, rollbacks),
      filtersOf(exp.parameters.filters),
      exp.parameters.order ?? DEFAULT_TRANSACTION_ORDER,
    )
    const fields = exp.parameters.fields.filter(isTransactionField)
    const file = storeFile(tx, {
      name: `voucher_transactions_${exp.id}.csv`,
      content_type: 'text/csv',
      chunks: csvPages(
        fields,
        rows.map((row) => fields.map((f) => row[f])),
      ),
    })
    tx.update('exports', stored, { ...exp, status: 'DONE', result: { url: file.url } })
    return { export_id: exp.id, file_id: file.id, url: file.url, rows: rows.length }
  },

  onFailure: exportFailed,
}

/** A failed export is `ERROR` without a file, in the commit that marks its action `FAILED`. */
async function exportFailed(tx: Tx, action: AsyncAction): Promise<void> {
  const { export_id } = action.payload as { export_id: string }
  const stored = await tx.store.exports.get(export_id)
  if (stored) tx.update('exports', stored, { ...stored.value, status: 'ERROR', result: null })
}

/** Records a `SCHEDULED` export and queues the action that writes its file, in one transaction. */
function scheduleExport(
  tx: Tx,
  action: string,
  exported_object: Export['exported_object'],
  parameters: Export['parameters'],
): Export {
  const created = tx.insert('exports', {
    id: tx.id(ID_PREFIX.export),
    object: 'export',
    created_at: tx.nowIso,
    status: 'SCHEDULED',
    channel: 'API',
    exported_object,
    parameters,
    result: null,
    user_id: null,
  })
  enqueue(tx, action, { export_id: created.id })
  return created
}

export function exports(ctx: Context) {
  return {
    /**
     * `POST /v1/campaigns/{campaignId}/transactions/export` (campaign by id or name): records the
     * export as `SCHEDULED` and queues the CSV for `asyncActions.runPending()`.
     */
    async createCampaignTransactionsExport(
      campaignIdOrName: string,
      body: ExportsCreateCampaignTransactionsExportParams = {},
      _options?: CallOptions,
    ): Promise<Export> {
      const key = parse(nonEmptyString, campaignIdOrName, 'campaignId')
      const input = parse(exportInput, body)
      return mutate(ctx, async (tx) => {
        const campaign = await findCampaign(tx, key)
        if (!campaign) throw EngineError.notFound('campaign', key, 'campaignId')
        const filters = normaliseFilters(input.parameters?.filters ?? {}, campaign.value.id)
        return scheduleExport(tx, TRANSACTIONS_EXPORT_ACTION, 'voucher_transactions', {
          order: input.order ?? DEFAULT_TRANSACTION_ORDER,
          fields: [...(input.parameters?.fields ?? DEFAULT_TRANSACTION_FIELDS)],
          filters: storedFilters(filters),
        })
      })
    },

    /**
     * `POST /v1/exports`: an export of vouchers, redemptions, customers, orders or publications, with
     * the columns (`parameters.fields`, dotted paths reach nested fields), `order` and `filters` asked;
     * recorded `SCHEDULED`, the CSV written by `asyncActions.runPending()`.
     */
    async create(body: ExportsCreateParams, _options?: CallOptions): Promise<Export> {
      const input = parse(objectsExportInput, body)
      const filters = normaliseObjectFilters(input.parameters?.filters ?? {})
      return mutate(ctx, async (tx) => {
        return scheduleExport(tx, OBJECTS_EXPORT_ACTION, input.exported_object, {
          order: input.parameters?.order ?? '-created_at',
          fields: [...(input.parameters?.fields ?? EXPORTABLE[input.exported_object].fields)],
          filters: storedFilters(filters),
        })
      })
    },

    async get(id: string, _options?: CallOptions): Promise<Export> {
      return (await must(ctx, 'exports', parse(nonEmptyString, id, 'exportId'), 'export', 'exportId')).value
    },
  }
}
