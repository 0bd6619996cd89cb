import type { Campaign } from '../../model/campaign'
import type { CardTransaction } from '../../model/card-transaction'
import type { Customer } from '../../model/customer'
import type { CalculatedOrder } from '../../model/order'
import { type EarningInput, freeUnits } from '../../rules/earned-points'
import type { Tx } from '../kernel/unit-of-work'
import { recordCardTransaction } from '../vouchers/card-transactions'
import type { CardState } from './points-ledger'

/** What the loyalty cascade's writers share: its triggers, what earning reads, and the points events. */

/** What fired: the event, its customer, and the event's own data. */
export interface EarningTrigger {
  /** `order.paid`, `customer.segment.entered`, a tier event, or a custom event's name. */
  event: string
  customer: Customer
  order?: CalculatedOrder
  segmentId?: string
  customEvent?: { schemaId: string; metadata: Record<string, unknown> }
  /** `loyalty.code` of a custom event: only that card's program earns. */
  cardCode?: string | undefined
}

/** What one trigger credited, per card. */
export interface EarnedPoints {
  campaign_id: string
  voucher_id: string
  earning_rule_id: string
  points: number
}

/**
 * The customer as this transaction last wrote them, else as stored: a member created by the same
 * sign-up is not in the store yet when their first tier event fires its rules.
 */
export async function customerInTx(tx: Tx, customerId: string): Promise<Customer | undefined> {
  for (let i = tx.writes.length - 1; i >= 0; i--) {
    const w = tx.writes[i]
    if (w?.op === 'put' && w.collection === 'customers' && (w.value as Customer).id === customerId) {
      return w.value as Customer
    }
  }
  return (await tx.store.customers.get(customerId))?.value
}

export function earningInput(tx: Tx, trigger: EarningTrigger): EarningInput {
  const input: EarningInput = {
    customer: { metadata: trigger.customer.metadata, birthdate: trigger.customer.birthdate ?? null },
    now: tx.now,
    timeZone: tx.ctx.config.timezone,
  }
  const o = trigger.order
  if (o) {
    input.order = {
      amount: o.amount,
      total_amount: o.total_amount,
      metadata: o.metadata,
      items: o.items.map((i) => ({
        product_id: i.product_id ?? i.product?.id ?? null,
        sku_id: i.sku_id ?? i.sku?.id ?? null,
        quantity: i.quantity,
        free_quantity: freeUnits(i),
        amount: i.amount,
        subtotal_amount: i.subtotal_amount,
        // Read by points formulas only (ORDER_ITEM_PRICE, ORDER_ITEM_METADATA).
        price: i.price,
        metadata: i.metadata ?? null,
      })),
    }
  }
  if (trigger.customEvent) input.customEvent = { metadata: trigger.customEvent.metadata }
  return input
}

export function orderRef(trigger: EarningTrigger): { id?: string; source_id?: string | null } | null {
  const o = trigger.order
  if (!o) return null
  return { ...(o.id === undefined ? {} : { id: o.id }), source_id: o.source_id ?? null }
}

/**
 * `points_added` and `rewarded.loyalty_points` (docs/behaviour.md#events) for a credit on a card, and
 * its `POINTS_ACCRUAL` card transaction (docs/behaviour.md#card-transactions): every credit of
 * spendable points is announced here.
 */
export function emitPointsAdded(
  tx: Tx,
  campaign: Campaign,
  card: CardState,
  points: number,
  data: Record<string, unknown>,
  source: CardTransaction['source'] = 'API',
): void {
  recordCardTransaction(tx, card.voucher, 'POINTS_ACCRUAL', points, data, source)
  const customerId = card.voucher.holder_id
  const payload = {
    ...data,
    points,
    balance: card.voucher.loyalty_card?.balance ?? 0,
    voucher: { id: card.voucher.id, code: card.voucher.code, loyalty_card: card.voucher.loyalty_card },
  }
  const filters = { campaign_id: campaign.id, campaign_type: campaign.campaign_type, category: 'EFFECT' as const }
  const group_id = tx.id('v_grp_')
  tx.emit('customer.voucher.loyalty_card.points_added', customerId, payload, { ...filters, group_id })
  tx.emit('customer.rewarded.loyalty_points', customerId, payload, { ...filters, group_id })
}

/**
 * `customer.voucher.loyalty_card.points_expired` for points that lapsed now (by the sweep, or refunded
 * past their expiry), and their `POINTS_EXPIRATION` card transaction.
 */
export function emitPointsExpired(
  tx: Tx,
  card: CardState,
  points: number,
  campaign: Campaign | undefined,
  source: CardTransaction['source'] = 'API',
): void {
  recordCardTransaction(tx, card.voucher, 'POINTS_EXPIRATION', -points, {}, source)
  tx.emit(
    'customer.voucher.loyalty_card.points_expired',
    card.voucher.holder_id,
    {
      points,
      balance: card.voucher.loyalty_card?.balance ?? 0,
      voucher: { id: card.voucher.id, code: card.voucher.code, loyalty_card: card.voucher.loyalty_card },
    },
    campaign
      ? { campaign_id: campaign.id, campaign_type: campaign.campaign_type, category: 'EFFECT' }
      : { category: 'EFFECT' },
  )
}
