import { ID_PREFIX } from '../../ids'
import type { Campaign, VoucherType } from '../../model/campaign'
import type { Category, Metadata, Validity } from '../../model/common'
import type { Discount, GiftInfo } from '../../model/discount'
import type { LoyaltyCardInfo, Voucher, VoucherAssets } from '../../model/voucher'
import type { Stored } from '../../storage/ports'
import type { Context, Tx } from '../kernel/unit-of-work'

/**
 * Asset URLs: the hosted service serves QR codes and barcodes from its own host. An embedded engine
 * has none, so the URL is a stable, host-neutral reference the host maps to its own asset service.
 */
export const ASSET_URL_BASE = 'promo-engine://assets'

/** Everything a new voucher is made of; the campaign's template has already been applied. */
export interface VoucherSpec extends Validity {
  code: string
  type: VoucherType
  campaign: Pick<Campaign, 'id' | 'name'> | null
  category: Category | null
  discount?: Discount | null
  gift?: Pick<GiftInfo, 'amount' | 'effect'> | null
  loyalty_card?: { points: number } | null
  /** `null`: unlimited (docs/concepts.md#quantities-and-limits). */
  quantity: number | null
  is_referral_code: boolean
  metadata?: Metadata
  additional_info?: string | null
}

export function voucherAssets(tx: Tx): VoucherAssets {
  const qr = tx.id(ID_PREFIX.qr)
  const barcode = tx.id(ID_PREFIX.barcode)
  return {
    qr: { id: qr, url: `${ASSET_URL_BASE}/qr/${qr}` },
    barcode: { id: barcode, url: `${ASSET_URL_BASE}/barcode/${barcode}` },
  }
}

/** The path of a voucher's sub-list, as the hosted service reports it in `redemption.url` / `publish.url`. */
function listUrl(code: string, list: 'redemptions' | 'publications'): string {
  return `/v1/vouchers/${encodeURIComponent(code)}/${list}?page=1&limit=10`
}

/** Builds a voucher entity (not yet written). Counters start at zero; balances equal what was loaded. */
export function buildVoucher(tx: Tx, spec: VoucherSpec): Voucher {
  const gift: GiftInfo | null =
    spec.type === 'GIFT_VOUCHER' && spec.gift
      ? {
          amount: spec.gift.amount,
          subtracted_amount: 0,
          balance: spec.gift.amount,
          ...(spec.gift.effect ? { effect: spec.gift.effect } : {}),
        }
      : null
  const loyalty: LoyaltyCardInfo | null =
    spec.type === 'LOYALTY_CARD'
      ? { points: spec.loyalty_card?.points ?? 0, balance: spec.loyalty_card?.points ?? 0 }
      : null
  const redemption: Voucher['redemption'] = {
    quantity: spec.quantity,
    redeemed_quantity: 0,
    ...(spec.type === 'GIFT_VOUCHER' ? { redeemed_amount: 0 } : {}),
    ...(spec.type === 'LOYALTY_CARD' ? { redeemed_points: 0 } : {}),
    object: 'list',
    url: listUrl(spec.code, 'redemptions'),
  }
  return {
    id: tx.id(ID_PREFIX.voucher),
    code: spec.code,
    campaign: spec.campaign?.name ?? null,
    campaign_id: spec.campaign?.id ?? null,
    category: spec.category?.name ?? null,
    category_id: spec.category?.id ?? null,
    categories: spec.category ? [spec.category] : [],
    type: spec.type,
    discount: spec.type === 'DISCOUNT_VOUCHER' ? (spec.discount ?? null) : null,
    gift,
    loyalty_card: loyalty,
    start_date: spec.start_date ?? null,
    expiration_date: spec.expiration_date ?? null,
    validity_timeframe: spec.validity_timeframe ?? null,
    validity_day_of_week: spec.validity_day_of_week ?? null,
    validity_hours: spec.validity_hours ?? null,
    active: spec.active ?? true,
    additional_info: spec.additional_info ?? null,
    metadata: spec.metadata ?? {},
    assets: voucherAssets(tx),
    is_referral_code: spec.is_referral_code,
    holder_id: null,
    redemption,
    publish: { object: 'list', count: 0, url: listUrl(spec.code, 'publications') },
    created_at: tx.nowIso,
    updated_at: null,
    object: 'voucher',
  }
}

/**
 * What a code made from a campaign's template gets: the template's type and value, the redemption
 * quantity, and the validity of the template or, where it sets none, of the campaign.
 */
export function specFromCampaign(campaign: Campaign, category: Category | null, code: string): VoucherSpec {
  const t = campaign.voucher
  return {
    code,
    type: t?.type ?? 'DISCOUNT_VOUCHER',
    campaign: { id: campaign.id, name: campaign.name },
    category,
    discount: t?.discount ?? null,
    gift: t?.gift ?? null,
    loyalty_card: t?.loyalty_card ? { points: t.loyalty_card.points } : null,
    quantity: t?.redemption?.quantity ?? null,
    is_referral_code: t?.is_referral_code ?? campaign.campaign_type === 'REFERRAL_PROGRAM',
    start_date: t?.start_date ?? campaign.start_date ?? null,
    expiration_date: t?.expiration_date ?? campaign.expiration_date ?? null,
    validity_timeframe: t?.validity_timeframe ?? campaign.validity_timeframe ?? null,
    validity_day_of_week: campaign.validity_day_of_week ?? null,
    validity_hours: campaign.validity_hours ?? null,
  }
}

/**
 * Finds a voucher by code, else by id: the service interface's `code` path parameter takes either.
 * Both reads are issued together: one round trip on a database (docs/storage.md#load-decide-commit).
 */
export async function findVoucher(store: Context['store'], codeOrId: string): Promise<Stored<Voucher> | undefined> {
  const [byCode, byId] = await Promise.all([store.vouchers.findBy('code', codeOrId), store.vouchers.get(codeOrId)])
  return byCode ?? byId
}

/**
 * A code as results show it: the stored one without the engine's count of its session locks
 * (docs/storage.md#session-locks) and a card's tier mark, which the service interface does not show.
 */
export function publicVoucher<V extends Voucher>(voucher: V): V {
  if (voucher.session_locks === undefined && voucher.tier_mark === undefined) return voucher
  const { session_locks: _locks, tier_mark: _mark, ...rest } = voucher
  return rest as V
}
