import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Campaign } from '../../model/campaign'
import type { Export } from '../../model/export'
import type { StoredRedemption } from '../../model/redemption'
import { type Filters, matchesFilters } from '../../rules/match-filters'
import {
  DEFAULT_TRANSACTION_FIELDS,
  DEFAULT_TRANSACTION_ORDER,
  TRANSACTION_FIELDS,
} from '../../rules/voucher-transactions'
import { nonEmptyString, opt } from '../../schema/common'
import { exportInput } from '../../schema/export'
import { parseListFilters } from '../../schema/list-filters'
import { parse } from '../../schema/parse'
import type { ExportsCreateCampaignTransactionsExportParams, ExportsCreateParams } from '../../schema/requests'
import * as v from '../../schema/valibot'
import type { CollectionName, Store, Stored } from '../../storage/ports'
import { enqueue } from '../kernel/jobs'
import { type Context, must, mutate, type Tx } from '../kernel/unit-of-work'
import { withOrders } from '../shop/order-records'
import { COMPUTED_COLUMNS, computedColumn, type PageLookups, pageLookups } from './export-columns'
import { EXPORT_CHUNK_ROWS, exportHandler, filtersOf, storedFilters } from './export-steps'
import { signedFileUrl } from './stored-files'

/** The async action type that writes a campaign transactions CSV. */
export const TRANSACTIONS_EXPORT_ACTION = 'export.voucher_transactions'

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

/**
 * The objects `POST /v1/exports` exports: the collection read, the columns given when none are asked
 * (the hosted "Defaults" table of `POST /v1/exports`), and the fields a column may name (its first
 * segment; a dotted path reaches into it): the object's own, and the columns the hosted service
 * computes from it (`export-columns.ts`). Any other column is `invalid_export_fields`
 * (docs/behaviour.md#exports).
 */
const EXPORTABLE = {
  voucher: {
    collection: 'vouchers',
    fields: ['code', 'voucher_type', 'value', 'discount_type'],
    known: [
      'id',
      'code',
      'campaign',
      'campaign_id',
      'category',
      'category_id',
      'categories',
      'type',
      'discount',
      'gift',
      'loyalty_card',
      'start_date',
      'expiration_date',
      'validity_timeframe',
      'validity_day_of_week',
      'validity_hours',
      'active',
      'additional_info',
      'metadata',
      'is_referral_code',
      'holder_id',
      'referrer_id',
      'redemption',
      'publish',
      'created_at',
      'updated_at',
      'object',
    ],
  },
  redemption: {
    collection: 'redemptions',
    fields: ['id', 'object', 'voucher_code', 'customer_id', 'date', 'result'],
    known: [
      'id',
      'object',
      'date',
      'customer_id',
      'tracking_id',
      'metadata',
      'amount',
      'redemption',
      'result',
      'status',
      'failure_code',
      'failure_message',
      'channel',
      'customer',
      'related_object_type',
      'related_object_id',
      'related_object_parent_id',
      'voucher',
      'promotion_tier',
      'reward',
      'gift',
      'loyalty_card',
      'order',
      'session',
      'related_redemptions',
    ],
  },
  customer: {
    collection: 'customers',
    fields: ['name', 'source_id'],
    known: [
      'id',
      'source_id',
      'name',
      'email',
      'phone',
      'birthdate',
      'address',
      'description',
      'metadata',
      'segments',
      'created_at',
      'updated_at',
      'object',
    ],
  },
  order: {
    collection: 'orders',
    fields: ['id', 'source_id', 'status'],
    known: [
      'id',
      'source_id',
      'status',
      'amount',
      'initial_amount',
      'discount_amount',
      'items_discount_amount',
      'total_discount_amount',
      'total_amount',
      'applied_discount_amount',
      'items_applied_discount_amount',
      'total_applied_discount_amount',
      'items',
      'metadata',
      'created_at',
      'updated_at',
      'customer_id',
      'referrer_id',
      'customer',
      'referrer',
      'redemptions',
      'object',
    ],
  },
  publication: {
    collection: 'publications',
    fields: ['code', 'customer_id', 'date', 'channel'],
    known: ['id', 'voucher_id', 'campaign_id', 'customer_id', 'source_id', 'channel', 'metadata', 'created_at'],
  },
} as const satisfies Record<string, { collection: CollectionName; fields: readonly string[]; known: readonly string[] }>

/** The columns an exported object has: its fields and its computed columns. */
const columnsOf = (object: ExportableObject): string[] => [
  ...EXPORTABLE[object].known,
  ...Object.keys(COMPUTED_COLUMNS[object] ?? {}).filter(
    (c) => !(EXPORTABLE[object].known as readonly string[]).includes(c),
  ),
]

/** A column's value: computed where the hosted service computes it, else the field (a dotted path reaches in). */
const columnOf = (object: string, entity: unknown, field: string, lookups: PageLookups): unknown =>
  computedColumn(object, field)?.value(entity, lookups) ?? fieldOf(entity, field)

/** Columns an export does not have: the hosted `400 invalid_export_fields`, naming the allowed ones. */
function checkExportFields(fields: readonly string[] | undefined, known: readonly string[], path: string): void {
  const unknown = (fields ?? []).filter((f) => !known.includes(f.split('.')[0] as string))
  if (unknown.length === 0) return
  throw new EngineError({
    code: 400,
    key: 'invalid_export_fields',
    message: 'Invalid Export',
    details: `Unsupported field used (${unknown.join(', ')}). Allowed fields: ${known.join(', ')}`,
    path,
  })
}

type ExportableObject = keyof typeof EXPORTABLE
const EXPORTABLE_OBJECTS = Object.keys(EXPORTABLE) as ExportableObject[]
/** What `POST /v1/exports` takes: the objects above, and a campaign's card transactions. */
const EXPORTED_OBJECTS = [...EXPORTABLE_OBJECTS, 'voucher_transactions'] as const

/** The async action type that writes a `POST /v1/exports` CSV. */
export const OBJECTS_EXPORT_ACTION = 'export.objects'

const EXPORT_ORDERS = ['created_at', '-created_at', 'id', '-id'] as const

/** A column: a field of the exported object, dotted to reach a nested one (`metadata.region`). */
const columnName = v.pipe(
  v.string(),
  v.regex(/^[A-Za-z_][\w]*(\.[\w]+)*$/, 'must be a field name (dotted for nested fields)'),
)

export const objectsExportInput = v.object({
  exported_object: v.picklist(EXPORTED_OBJECTS, `must be one of ${EXPORTED_OBJECTS.join(', ')}`),
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

/** Any field may be filtered; the junction may be AND or OR. */
function normaliseObjectFilters(raw: Record<string, unknown>): Filters {
  return parseListFilters(raw, (field, path) => parse(columnName, field, path), 'parameters.filters')
}

const fieldOf = (entity: unknown, field: string): unknown =>
  field
    .split('.')
    .reduce<unknown>(
      (o, k) => (o !== null && typeof o === 'object' ? (o as Record<string, unknown>)[k] : undefined),
      entity,
    )

/** `POST /v1/exports`: the collection read in the asked order (one it is indexed in), filtered row by row. */
export const objectsExportHandler = exportHandler(async (tx, exp) => {
  const { collection } = EXPORTABLE[exp.exported_object as ExportableObject]
  const order = exp.parameters.order ?? '-created_at'
  const desc = order.startsWith('-')
  const filters = filtersOf(exp.parameters.filters)
  const fields = exp.parameters.fields
  const object = exp.exported_object
  const read = [...fields, ...Object.keys(filters.fields)]
  const matches = (e: unknown, l: PageLookups) =>
    matchesFilters(Object.fromEntries(Object.keys(filters.fields).map((f) => [f, columnOf(object, e, f, l)])), filters)
  return {
    header: fields,
    async next(cursor, limit) {
      const rows: unknown[][] = []
      let after = cursor as string | undefined
      for (;;) {
        const page = await tx.store[collection].list({
          order: { field: desc ? order.slice(1) : order, direction: desc ? 'desc' : 'asc' },
          limit: EXPORT_CHUNK_ROWS,
          count: false,
          ...(after === undefined ? {} : { starting_after_id: after }),
        })
        // Redemptions as the interface shows them: their orders joined in (one batched read a page).
        const values = await joined(tx.store, collection, page.data)
        const lookups = await pageLookups(tx.store, object, read, values)
        for (const value of values) {
          after = value.id
          if (matches(value, lookups)) rows.push(fields.map((f) => columnOf(object, value, f, lookups)))
          if (rows.length === limit) return { rows, cursor: after }
        }
        if (!page.has_more) return { rows, cursor: null }
      }
    },
  }
})

/** A page of an export's collection as the interface shows it: redemptions with their orders joined in. */
async function joined(
  store: Store,
  collection: CollectionName,
  page: readonly Stored<{ id: string }>[],
): Promise<{ id: string }[]> {
  const values = page.map((s) => s.value)
  return collection === 'redemptions' ? withOrders(store, values as StoredRedemption[]) : values
}

/**
 * The campaign of a `voucher_transactions` export of `POST /v1/exports`: the hosted filter
 * `campaign_id` `$in` with exactly one id (`TransactionsExportFilterConditionsWithCampaign`), and the
 * other filters, which apply to the rows as in the campaign's own transactions export.
 */
function transactionsCampaign(filters: Record<string, unknown> | undefined): {
  campaignId: string
  rest: Record<string, unknown>
} {
  const { campaign_id: condition, ...rest } = filters ?? {}
  const ids = (condition as { conditions?: { $in?: unknown } } | undefined)?.conditions?.$in
  if (!Array.isArray(ids) || ids.length !== 1 || typeof ids[0] !== 'string' || ids[0] === '') {
    throw EngineError.invalid('parameters.filters.campaign_id', 'must name one campaign: {conditions: {$in: [id]}}')
  }
  return { campaignId: ids[0], rest }
}

async function findCampaign(tx: Tx | Context, idOrName: string): Promise<Stored<Campaign> | undefined> {
  return (await tx.store.campaigns.get(idOrName)) ?? (await tx.store.campaigns.findBy('name', idOrName))
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
  /** `POST /v1/campaigns/{campaignId}/transactions/export`, also what a `voucher_transactions` export of `POST /v1/exports` is. */
  async function campaignTransactionsExport(
    campaignIdOrName: string,
    body: ExportsCreateCampaignTransactionsExportParams,
  ): Promise<Export> {
    const key = parse(nonEmptyString, campaignIdOrName, 'campaignId')
    const input = parse(exportInput, body)
    checkExportFields(input.parameters?.fields, TRANSACTION_FIELDS, 'parameters.fields')
    return mutate(ctx, async (tx) => {
      const campaign = await findCampaign(tx, key)
      if (!campaign) throw EngineError.notFound('campaign', key, 'campaignId')
      const type = campaign.value.campaign_type
      if (type !== 'GIFT_VOUCHERS' && type !== 'LOYALTY_PROGRAM') {
        // The hosted 403 (docs/behaviour.md#exports): credits and points move only on gift and loyalty cards.
        throw new EngineError({
          code: 403,
          key: 'forbidden',
          message: 'Forbidden',
          details: 'Transactions are allowed only for loyalty or gift campaigns',
          path: 'campaignId',
        })
      }
      const filters = normaliseFilters(input.parameters?.filters ?? {}, campaign.value.id)
      return scheduleExport(tx, TRANSACTIONS_EXPORT_ACTION, 'voucher_transactions', {
        order: input.order ?? DEFAULT_TRANSACTION_ORDER,
        fields: [...(input.parameters?.fields ?? DEFAULT_TRANSACTION_FIELDS)],
        filters: storedFilters(filters),
      })
    })
  }

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
      return campaignTransactionsExport(campaignIdOrName, body)
    },

    /**
     * `POST /v1/exports`: an export of vouchers, redemptions, customers, orders or publications, with
     * the columns (`parameters.fields`, dotted paths reach nested fields), `order` and `filters` asked;
     * recorded `SCHEDULED`, the CSV written by `asyncActions.runPending()`.
     */
    async create(body: ExportsCreateParams, _options?: CallOptions): Promise<Export> {
      const input = parse(objectsExportInput, body)
      if (input.exported_object === 'voucher_transactions') {
        const { campaignId, rest } = transactionsCampaign(input.parameters?.filters)
        const order = input.parameters?.order
        return campaignTransactionsExport(campaignId, {
          ...(order === undefined ? {} : { order: order as 'created_at' }),
          parameters: {
            ...(input.parameters?.fields ? { fields: input.parameters.fields } : {}),
            filters: rest,
          },
        })
      }
      const object = input.exported_object
      checkExportFields(input.parameters?.fields, columnsOf(object), 'parameters.fields')
      const filters = normaliseObjectFilters(input.parameters?.filters ?? {})
      return mutate(ctx, async (tx) => {
        return scheduleExport(tx, OBJECTS_EXPORT_ACTION, object, {
          order: input.parameters?.order ?? '-created_at',
          fields: [...(input.parameters?.fields ?? EXPORTABLE[object].fields)],
          filters: storedFilters(filters),
        })
      })
    },

    /** An export; once `DONE`, its `result.url` is a signed link to the file, fresh at every read. */
    async get(id: string, _options?: CallOptions): Promise<Export> {
      const exp = (await must(ctx, 'exports', parse(nonEmptyString, id, 'exportId'), 'export', 'exportId')).value
      return exp.status === 'DONE' ? { ...exp, result: { url: signedFileUrl(ctx, exp.result.url) } } : exp
    },
  }
}
