import type { CallOptions } from '../call-options'
import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { Campaign } from '../model/campaign'
import type { AsyncAction, Export } from '../model/misc'
import type { Stored } from '../ports'
import { toCsv } from '../rules/csv'
import type { FilterConditions, Filters } from '../rules/filters'
import {
  DEFAULT_TRANSACTION_FIELDS,
  DEFAULT_TRANSACTION_ORDER,
  isTransactionField,
  selectTransactions,
  TRANSACTION_FIELDS,
  transactionRows,
} from '../rules/voucher-transactions'
import { nonEmptyString } from '../schema/common'
import { exportInput } from '../schema/export'
import { parseListFilters } from '../schema/list-filters'
import { parse } from '../schema/parse'
import type { ExportsCreateCampaignTransactionsExportParams } from '../schema/requests'
import type { AsyncHandler } from './async-actions'
import { enqueue } from './async-actions'
import { type Context, must, mutate, type Tx } from './context'
import { storeFile } from './files'

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
    const redemptions = (
      await tx.store.redemptions.list({ where: { related_object_id: { in: vouchers.map((x) => x.id) } } })
    ).data
      .map((s) => s.value)
      .filter((r) => r.related_object_type === 'voucher')
    const rollbacks = (
      await tx.store.redemption_rollbacks.list({ where: { redemption: { in: redemptions.map((r) => r.id) } } })
    ).data.map((s) => s.value)

    const rows = selectTransactions(
      transactionRows(vouchers, redemptions, rollbacks),
      filtersOf(exp.parameters.filters),
      exp.parameters.order ?? DEFAULT_TRANSACTION_ORDER,
    )
    const fields = exp.parameters.fields.filter(isTransactionField)
    const file = storeFile(tx, {
      name: `voucher_transactions_${exp.id}.csv`,
      content_type: 'text/csv',
      content: toCsv(
        fields,
        rows.map((row) => fields.map((f) => row[f])),
      ),
    })
    tx.update('exports', stored, { ...exp, status: 'DONE', result: { url: file.url } })
    return { export_id: exp.id, file_id: file.id, url: file.url, rows: rows.length }
  },

  async onFailure(tx: Tx, action: AsyncAction) {
    const { export_id } = action.payload as { export_id: string }
    const stored = await tx.store.exports.get(export_id)
    if (stored) tx.update('exports', stored, { ...stored.value, status: 'ERROR', result: null })
  },
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
        const created = tx.insert('exports', {
          id: tx.id(ID_PREFIX.export),
          object: 'export',
          created_at: tx.nowIso,
          status: 'SCHEDULED',
          channel: 'API',
          exported_object: 'voucher_transactions',
          parameters: {
            order: input.order ?? DEFAULT_TRANSACTION_ORDER,
            fields: [...(input.parameters?.fields ?? DEFAULT_TRANSACTION_FIELDS)],
            filters: storedFilters(filters),
          },
          result: null,
          user_id: null,
        })
        enqueue(tx, TRANSACTIONS_EXPORT_ACTION, { export_id: created.id })
        return created
      })
    },

    async get(id: string, _options?: CallOptions): Promise<Export> {
      return (await must(ctx, 'exports', parse(nonEmptyString, id, 'exportId'), 'export', 'exportId')).value
    },
  }
}
