import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import type { AsyncAction } from '../../model/async-action'
import type { Voucher } from '../../model/voucher'
import { nonEmptyString } from '../../schema/common'
import { parse } from '../../schema/parse'
import type { VouchersBulkUpdateParams, VouchersCreateParams } from '../../schema/requests'
import type * as v from '../../schema/valibot'
import { checkValidity } from '../../schema/validity'
import { bulkUpdateInput, checkVoucherValue, voucherInput } from '../../schema/voucher'
import type { Stored } from '../../storage/ports'
import { findCampaign } from '../campaigns/campaign-records'
import { resolveCategoryRef } from '../campaigns/category-records'
import { releaseSession } from '../checkout/session-locks'
import { duplicateFound } from '../kernel/duplicate-found'
import { type AsyncHandler, enqueue } from '../kernel/jobs'
import { enforceMetadata } from '../kernel/metadata-enforcement'
import { type Context, mutate } from '../kernel/unit-of-work'
import { codesCounterId } from './code-counts'
import { generateUnusedCodes } from './unused-codes'
import { buildVoucher, findVoucher, publicVoucher, specFromCampaign, type VoucherSpec } from './voucher-records'

/** The async action type of `vouchers.bulkUpdate`. */
export const VOUCHERS_BULK_UPDATE_ACTION = 'VOUCHERS.BULK_UPDATE'

type BulkUpdate = v.InferOutput<typeof bulkUpdateInput>[number]

/** A bulk update's `result`, as the hosted `VOUCHERS.BULK_UPDATE` action shows it. */
export interface BulkUpdateResult {
  done_count: number
  failed_count: number
  /** One per failed item, naming its code and the stable error key (`not_found` for an unknown code). */
  errors: { code: string; key: string; message: string; details: string }[]
}

/**
 * Applies a bulk update: each code's metadata merged into the voucher's and checked against the
 * voucher metadata schema. A code that is unknown (never created: no upserts) or whose metadata is
 * refused counts as failed and does not stop the others; the successful updates commit with the
 * action's DONE status.
 */
/** What an asynchronous operation answers at once: the id to follow with `asyncActions.get`. */
export interface AsyncActionRef {
  async_action_id: string
}

export const vouchersBulkUpdateHandler: AsyncHandler['run'] = async (tx, action: AsyncAction) => {
  const updates = action.payload as BulkUpdate[]
  // The same code twice: the second update merges into the first one's result.
  const current = new Map<string, { stored: Stored<Voucher>; value: Voucher }>()
  const result: BulkUpdateResult = { done_count: 0, failed_count: 0, errors: [] }
  for (const [i, update] of updates.entries()) {
    try {
      const stored = await findVoucher(tx.store, update.code)
      if (!stored) throw EngineError.notFound('voucher', update.code)
      const entry = current.get(stored.value.id) ?? { stored, value: stored.value }
      const merged = await enforceMetadata(
        tx,
        'voucher',
        { ...entry.value.metadata, ...update.metadata },
        `[${i}].metadata`,
      )
      entry.value = tx.update('vouchers', entry.stored, { ...entry.value, metadata: merged, updated_at: tx.nowIso })
      current.set(stored.value.id, entry)
      result.done_count++
    } catch (error) {
      if (!(error instanceof EngineError)) throw error
      const { key, message, details } = error
      result.failed_count++
      result.errors.push({ code: update.code, key, message, details })
    }
  }
  return result
}

/** Takes the request's value where it gave one (even `null`), else the inherited one. */
function given<T>(value: T | undefined, inherited: T): T {
  return value === undefined ? inherited : value
}

export function vouchers(ctx: Context) {
  return {
    /**
     * Creates one voucher, standalone or in a campaign (`campaign` name or `campaign_id`). In a
     * campaign, every field the request leaves out comes from the campaign's template and validity,
     * and the campaign's `vouchers_count` grows by one. Without `code` one is generated from
     * `code_config` (the request's, else the campaign's, else 8 alphanumeric characters).
     */
    async create(body: VouchersCreateParams, _options?: CallOptions): Promise<Voucher> {
      const input = parse(voucherInput, body)
      if (input.campaign && input.campaign_id) {
        throw EngineError.invalid('campaign_id', 'must not be given together with campaign (pass one of them)')
      }
      return mutate(ctx, async (tx) => {
        const campaignRef = input.campaign_id ?? input.campaign
        const stored = campaignRef ? await findCampaign(tx.store, campaignRef) : undefined
        if (campaignRef && !stored) throw EngineError.notFound('campaign', campaignRef)
        const campaign = stored?.value
        if (campaign && !campaign.voucher) {
          throw EngineError.invalid(
            input.campaign_id ? 'campaign_id' : 'campaign',
            `${campaign.campaign_type} campaigns have no codes`,
          )
        }
        const type = input.type ?? campaign?.voucher?.type
        if (!type) throw EngineError.invalid('type', 'is required for a voucher outside a campaign')
        if (campaign?.voucher && type !== campaign.voucher.type) {
          throw EngineError.invalid('type', `must be ${campaign.voucher.type}, the type of campaign ${campaign.name}`)
        }

        // The voucher's own category wins; without one it is in its campaign's.
        const category =
          input.category || input.category_id ? await resolveCategoryRef(tx, input) : (campaign?.categories[0] ?? null)

        const inherited: Partial<VoucherSpec> = campaign ? specFromCampaign(campaign, category, '') : {}
        const value = {
          discount: given(input.discount, inherited.discount ?? null),
          gift: given(input.gift, inherited.gift ?? null),
          loyalty_card: given(input.loyalty_card, inherited.loyalty_card ?? null),
        }
        // A voucher without the gift or discount its type needs: the error guide's `invalid_voucher`.
        checkVoucherValue(type, value, '', 'invalid_voucher')
        const validity = {
          start_date: given(input.start_date, inherited.start_date ?? null),
          expiration_date: given(input.expiration_date, inherited.expiration_date ?? null),
          validity_timeframe: given(input.validity_timeframe, inherited.validity_timeframe ?? null),
          validity_day_of_week: given(input.validity_day_of_week, inherited.validity_day_of_week ?? null),
          validity_hours: given(input.validity_hours, inherited.validity_hours ?? null),
          active: input.active ?? true,
        }
        checkValidity(validity)

        let code = input.code
        if (code !== undefined) {
          if (await tx.store.vouchers.findBy('code', code)) throw duplicateFound('voucher', 'code', code)
        } else {
          const config = input.code_config ?? campaign?.voucher?.code_config ?? {}
          const [generated] = await generateUnusedCodes(tx, config, 1, 'code_config')
          code = generated ?? ''
        }

        const voucher = buildVoucher(tx, {
          code,
          type,
          campaign: campaign ? { id: campaign.id, name: campaign.name } : null,
          category,
          ...value,
          quantity: given(input.redemption?.quantity, inherited.quantity ?? null),
          is_referral_code: input.is_referral_code ?? inherited.is_referral_code ?? false,
          ...validity,
          metadata: await enforceMetadata(tx, 'voucher', input.metadata),
          additional_info: input.additional_info ?? null,
        })
        tx.insert('vouchers', voucher)
        // Counted in the campaign's counter row: concurrent additions all land and the campaign's own
        // row stays its settings' (docs/storage.md#shared-rows).
        if (stored)
          tx.increment(
            'counters',
            codesCounterId(stored.value.id),
            { count: 1 },
            { create: {}, set: { updated_at: tx.nowIso } },
          )
        return voucher
      })
    },

    /**
     * Queues metadata updates of many vouchers (`POST /v1/vouchers/bulk/async`): 1–1000 items
     * `{code, metadata}`, checked now (400 naming `[i].code`), applied by `asyncActions.runPending()`.
     * `asyncActions.get(async_action_id)` then shows `DONE`, `progress` 100 and `result` with
     * `done_count`, `failed_count` and `errors` (one per failed item).
     */
    async bulkUpdate(body: VouchersBulkUpdateParams, _options?: CallOptions): Promise<AsyncActionRef> {
      const updates = parse(bulkUpdateInput, body)
      const action = await mutate(ctx, async (tx) => enqueue(tx, VOUCHERS_BULK_UPDATE_ACTION, updates))
      return { async_action_id: action.id }
    },

    /**
     * `DELETE /v1/vouchers/{code}/sessions/{sessionKey}`: releases the live session lock the key
     * holds on the code (docs/concepts.md#sessions), so its use, credits and points are free again. 404 when the
     * code is unknown or the key holds no live lock on it (never taken, released, or expired).
     */
    async releaseValidationSession(code: string, sessionKey: string, _options?: CallOptions): Promise<void> {
      const key = parse(nonEmptyString, code, 'code')
      const session = parse(nonEmptyString, sessionKey, 'sessionKey')
      await mutate(ctx, async (tx) => {
        const voucher = await findVoucher(tx.store, key)
        if (!voucher) throw EngineError.notFound('voucher', key, 'code')
        const held = await tx.store.sessions.list({ where: { key: session }, count: false })
        // An expired lock holds nothing any more: it is not there to release.
        const live = (s: (typeof held.data)[number]) =>
          s.value.voucher_id === voucher.value.id &&
          s.value.released_at === null &&
          Date.parse(s.value.expires_at) > tx.now.getTime()
        if (!held.data.some(live)) {
          throw EngineError.notFound('session', session, 'sessionKey')
        }
        await releaseSession(tx, session, voucher.value.id)
      })
    },

    /** Reads a voucher by code or id. */
    async get(code: string, _options?: CallOptions): Promise<Voucher> {
      const key = parse(nonEmptyString, code, 'code')
      const found = await findVoucher(ctx.store, key)
      if (!found) throw EngineError.notFound('voucher', key, 'code')
      return publicVoucher(found.value)
    },
  }
}
