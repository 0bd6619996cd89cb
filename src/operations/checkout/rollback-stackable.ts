import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Campaign } from '../../model/campaign'
import type { CalculatedOrder, Order } from '../../model/order'
import type { Redemption, RedemptionRollback, StoredRollback } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import { addDuration } from '../../rules/duration'
import { withOrderRef } from '../../rules/order-refs'
import { revertOrder } from '../../rules/redeemables'
import type { RollbackRequest } from '../../schema/stackable'
import type { Stored } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'
import { emitPointsExpired } from '../loyalty/points-events'
import { type CardState, countCardUse, loadCard, refundCard } from '../loyalty/points-ledger'
import { undoneReward } from '../loyalty/reward-records'
import { ordersByVersion, updateOrder, versionAfterWrite, withOrder, withOrders } from '../shop/order-records'
import { countRollbackInSummary } from '../shop/summary-counters'
import { tierShare, uncountRedemptions } from './redemption-counters'

/** Rollbacks are accepted within three months of the redemption (docs/concepts.md#rollbacks). */
const ROLLBACK_WINDOW = 'P3M'

export type RollbackOrderMode = 'WITH_ORDER' | 'WITHOUT_ORDER'

/**
 * What a rollback sets off in other domains, for the operation to run, in this order, after the
 * rollback's own writes and in its commit (docs/design.md#layers): a loyalty card whose points came
 * back is re-tiered (`points_changed`), a referee's credit from a rolled-back referral code is taken
 * back, and what a reward redemption gave is undone.
 */
export type RollbackReaction =
  | { step: 'points_changed'; campaign: Campaign; card: CardState }
  | { step: 'referee_credit'; redemption: Redemption }
  | { step: 'reward'; redemption: Redemption }

/** A rollback as written: its result, and the reactions it sets off. */
export interface RolledBack<T> {
  result: T
  reactions: RollbackReaction[]
}

/**
 * What both rollback endpoints refuse (docs/concepts.md#rollbacks): a redemption rolled back before
 * (`already_rolled_back`), a failed one (`invalid_redemption`), one older than three months
 * (`rollback_period_expired`), and a body naming another customer or order (`invalid_customer`,
 * `invalid_order`).
 */
export function checkRollbackable(tx: Tx, redemption: Redemption, input: RollbackRequest): void {
  if (redemption.status === 'ROLLED_BACK') {
    throw new EngineError({
      code: 400,
      key: 'already_rolled_back',
      message: 'Already rolled back',
      details: 'Redemption has been already rolled back.',
    })
  }
  if (redemption.result !== 'SUCCESS') {
    throw new EngineError({
      code: 400,
      key: 'invalid_redemption',
      message: 'Invalid redemption',
      details: 'Only a successful redemption can be rolled back.',
    })
  }
  if (addDuration(new Date(redemption.date), ROLLBACK_WINDOW).getTime() < tx.now.getTime()) {
    throw new EngineError({
      code: 400,
      key: 'rollback_period_expired',
      message: 'Rollback period expired',
      details: `Redemption ${redemption.id} is older than 3 months and can no longer be rolled back.`,
    })
  }
  const c = input.customer
  const holder = redemption.customer
  if (
    c &&
    ((c.id !== undefined && c.id !== redemption.customer_id) ||
      (c.source_id !== undefined && c.source_id !== (holder?.source_id ?? redemption.tracking_id)))
  ) {
    throw new EngineError({
      code: 400,
      key: 'invalid_customer',
      message: 'Invalid customer',
      details: `The customer is not the one of redemption ${redemption.id}.`,
      path: 'customer',
    })
  }
  const o = input.order
  if (
    o &&
    ((o.id !== undefined && o.id !== redemption.order?.id) ||
      (o.source_id != null && o.source_id !== redemption.order?.source_id))
  ) {
    throw new EngineError({
      code: 400,
      key: 'invalid_order',
      message: 'Invalid order',
      details: `The order is not the one of redemption ${redemption.id}.`,
      path: 'order',
    })
  }
}

/** The rollback object of one redemption: what it gave, negated (`amount`, `gift`, `loyalty_card`). */
export function rollbackRecord(
  tx: Tx,
  redemption: Redemption,
  input: RollbackRequest,
  id: string = tx.id(ID_PREFIX.redemption_rollback),
): RedemptionRollback {
  const rb: RedemptionRollback = {
    id,
    object: 'redemption_rollback',
    date: tx.nowIso,
    redemption: redemption.id,
    reason: input.reason ?? null,
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    channel: { channel_id: null, channel_type: 'API' },
    customer_id: redemption.customer_id,
    // The hosted rollback names its customer as the redemption did.
    tracking_id: redemption.tracking_id,
    related_object_type: redemption.related_object_type,
    related_object_id: redemption.related_object_id,
    metadata: input.metadata ?? {},
  }
  // A campaign's rollbacks are listed by it (the transactions export), as its redemptions are.
  if (redemption.related_object_parent_id) rb.related_object_parent_id = redemption.related_object_parent_id
  if (redemption.customer) rb.customer = redemption.customer
  if (redemption.amount !== undefined) rb.amount = -redemption.amount
  if (redemption.gift) rb.gift = { amount: -redemption.gift.amount }
  if (redemption.loyalty_card) rb.loyalty_card = { points: -redemption.loyalty_card.points }
  return rb
}

/** The refusals of `checkRollbackable` and of a stacked rollback: they are recorded as failed rollbacks. */
export const ROLLBACK_REFUSALS: ReadonlySet<string> = new Set([
  'already_rolled_back',
  'invalid_redemption',
  'rollback_period_expired',
  'invalid_customer',
  'invalid_order',
])

/**
 * A refused rollback is recorded as a failed redemption is: in its own commit (the refused attempt
 * wrote nothing), a FAILURE rollback object (`rrf_…`) with the refusal's key and message, and
 * `customer.redemption.rollback.failed` (docs/behaviour.md#events). It gives nothing back, so it carries no
 * negated amounts, and the redemption is not linked to it. The caller still throws the refusal.
 */
export async function recordFailedRollback(
  tx: Tx,
  redemptionId: string,
  input: RollbackRequest,
  refusal: EngineError,
): Promise<RedemptionRollback | undefined> {
  const stored = await tx.store.redemptions.get(redemptionId)
  if (!stored) return undefined
  const r = stored.value
  const {
    amount: _a,
    gift: _g,
    loyalty_card: _l,
    ...base
  } = rollbackRecord(tx, r, input, tx.id(ID_PREFIX.redemption_rollback_failed))
  const rb: RedemptionRollback = {
    ...base,
    result: 'FAILURE',
    status: 'FAILED',
    failure_code: refusal.key,
    failure_message: refusal.message,
  }
  tx.insert('redemption_rollbacks', rb)
  countRollbackInSummary(tx, rb)
  tx.emit('customer.redemption.rollback.failed', r.customer_id, {
    rollback: { id: rb.id, redemption: r.id, failure_code: refusal.key },
  })
  return rb
}

/** Marks a redemption ROLLED_BACK, linking its rollback. */
export function markRolledBack(
  tx: Tx,
  stored: Stored<Redemption>,
  rollbackId: string,
  mode: RollbackOrderMode,
): Redemption {
  return tx.update('redemptions', stored, {
    ...succeeded(stored.value),
    status: 'ROLLED_BACK',
    related_redemptions: {
      rollbacks: [{ id: rollbackId, date: tx.nowIso, rollback_order_mode: mode }],
      redemptions: stored.value.related_redemptions?.redemptions ?? [],
    },
  })
}

export async function rollback(
  tx: Tx,
  parentId: string,
  input: RollbackRequest,
  mode: RollbackOrderMode,
): Promise<RolledBack<StackedRollback>> {
  const parent = await tx.store.redemptions.get(parentId)
  if (!parent) throw EngineError.notFound('redemption', parentId, 'parentRedemptionId')
  if (parent.value.redemption !== null) {
    throw new EngineError({
      code: 400,
      key: 'invalid_redemption_parent',
      message: 'Invalid redemption parent',
      details: 'You can rollback only a redemption that does not have parent redemption.',
      path: 'parentRedemptionId',
    })
  }
  if (parent.value.related_object_type !== 'redemption' && parent.value.related_object_type !== 'promotion_stack') {
    // A single redemption (a reward redemption) has no children: this endpoint would give nothing back.
    throw new EngineError({
      code: 400,
      key: 'invalid_redemption',
      message: 'Invalid redemption',
      details: 'This is a single redemption. Use the single redemption rollback endpoint.',
      path: 'parentRedemptionId',
    })
  }
  const related = parent.value.related_redemptions?.redemptions ?? []
  // The children refer to the parent's order: it is read with them, not after.
  const ref = parent.value.order_ref
  const [children, orders] = await Promise.all([
    tx.store.redemptions.getMany(related.map((c) => c.id)),
    ordersByVersion(tx.store, ref ? [ref] : []),
  ])
  // Decisions read the orders joined in; the redemptions are written back as stored.
  const [redeemed, ...childOrders] = await withOrders(tx.store, [parent.value, ...children.map((c) => c.value)], orders)
  const wire = redeemed as Redemption
  checkRollbackable(tx, wire, input)
  const customerId = parent.value.customer_id
  const rollbacks: RedemptionRollback[] = []
  const reactions: RollbackReaction[] = []
  const parentRollbackId = tx.id(ID_PREFIX.redemption_rollback)
  await uncountRedemptions(tx, childOrders)
  for (const [i, child] of children.entries()) {
    const rb = rollbackRecord(tx, child.value, input)
    rb.customer_id = customerId
    const card = await giveBack(tx, childOrders[i] as Redemption)
    if (card) reactions.push(card)
    if (child.value.referee_credit) reactions.push({ step: 'referee_credit', redemption: child.value })
    markRolledBack(tx, child, rb.id, mode)
    rollbacks.push(tx.insert('redemption_rollbacks', rb))
    countRollbackInSummary(tx, rb)
    tx.emit('customer.redemption.rollback.succeeded', customerId, {
      rollback: { id: rb.id, redemption: child.value.id },
    })
  }
  const written = await rollbackOrder(tx, wire, parentRollbackId, rollbacks, mode)
  const parentRollback: RedemptionRollback = {
    ...rollbackRecord(tx, wire, input, parentRollbackId),
    related_object_type: 'redemption',
    related_object_id: parentId,
    order: written?.order ?? null,
  }
  tx.insert('redemption_rollbacks', referringToOrder(parentRollback, written))
  tx.update('redemptions', parent, {
    ...succeeded(parent.value),
    status: 'ROLLED_BACK',
    related_redemptions: {
      rollbacks: [{ id: parentRollbackId, date: tx.nowIso, rollback_order_mode: mode }],
      redemptions: related,
    },
  })
  return { result: { rollbacks, parent_rollback: parentRollback, order: written?.order ?? null }, reactions }
}

/**
 * `POST /v1/redemptions/{redemptionId}/rollback`: a single (non-stacked) redemption, such as a
 * reward redemption. A stacked parent or child is refused (`invalid_redemption`). The use and the
 * points go back (`giveBack`), the order follows the rollback order mode (`rollbackSingleOrder`).
 * The reward's own effects are undone by the operation, as a reaction (`undoReward`).
 */
export async function rollbackSingle(
  tx: Tx,
  redemptionId: string,
  input: RollbackRequest,
  mode: RollbackOrderMode,
): Promise<RolledBack<RedemptionRollback>> {
  const stored = await tx.store.redemptions.get(redemptionId)
  if (!stored) throw EngineError.notFound('redemption', redemptionId, 'redemptionId')
  const r = await withOrder(tx.store, stored.value)
  const stacked =
    r.redemption !== null || r.related_object_type === 'redemption' || r.related_object_type === 'promotion_stack'
  if (stacked) {
    throw new EngineError({
      code: 400,
      key: 'invalid_redemption',
      message: 'Invalid redemption',
      details: 'You can rollback only a single redemption. Use different endpoint for stacked redemption.',
      path: 'redemptionId',
    })
  }
  checkRollbackable(tx, r, input)
  const rb = rollbackRecord(tx, r, input)
  const card = await giveBack(tx, r)
  const reactions: RollbackReaction[] = card ? [card] : []
  const reward = undoneReward(r)
  if (reward) {
    rb.reward = reward
    reactions.push({ step: 'reward', redemption: r })
  }
  const { order, written } = await rollbackSingleOrder(tx, r, rb.id, mode)
  if (order !== undefined) rb.order = order
  if (r.voucher !== undefined) {
    const card = await tx.store.vouchers.get(r.related_object_id)
    rb.voucher = card?.value ?? r.voucher
  }
  markRolledBack(tx, stored, rb.id, mode)
  tx.insert('redemption_rollbacks', referringToOrder(rb, written))
  countRollbackInSummary(tx, rb)
  tx.emit('customer.redemption.rollback.succeeded', r.customer_id, { rollback: { id: rb.id, redemption: r.id } })
  if (reward) {
    const campaignId = (r.voucher as Voucher | undefined)?.campaign_id
    const campaign = campaignId ? await tx.store.campaigns.get(campaignId) : undefined
    tx.emit(
      'customer.reward_redemptions.rolledback',
      r.customer_id,
      { redemption: { id: r.id }, rollback: { id: rb.id }, reward, points: r.loyalty_card?.points ?? 0 },
      campaign ? { campaign_id: campaign.value.id, campaign_type: campaign.value.campaign_type } : {},
    )
  }
  return { result: rb, reactions }
}

/**
 * The order of a single redemption. A stored order is reverted and canceled like a stacked one
 * (`WITH_ORDER`) or kept (`WITHOUT_ORDER`); an order only carried by the redemption (pay with points
 * in `redeemReward`) is returned the same way on the rollback without being stored.
 */
async function rollbackSingleOrder(
  tx: Tx,
  r: Redemption,
  rollbackId: string,
  mode: RollbackOrderMode,
): Promise<{ order?: CalculatedOrder | null; written?: WrittenOrder | null }> {
  if (!r.order) return {}
  if (r.order.id && (await tx.store.orders.get(r.order.id))) {
    const written = await rollbackOrder(tx, r, rollbackId, [], mode)
    return { order: written?.order ?? null, written }
  }
  if (mode === 'WITHOUT_ORDER') return { order: r.order }
  return { order: { ...revertOrder(r.order, r.order), status: 'CANCELED' } }
}

/** A stored order as a commit writes it, with the version it will have. */
interface WrittenOrder {
  order: Order
  version: number
}

/** A rollback as stored: referring to the order its commit writes rather than copying it. */
function referringToOrder(rb: RedemptionRollback, written: WrittenOrder | null | undefined): StoredRollback {
  return written ? withOrderRef(rb, written.order, written.version) : rb
}

/**
 * One use, the credits and the points of a redemption go back to its voucher or tier. A loyalty
 * card whose points came back is returned: the operation re-tiers it on the restored balance.
 */
export async function giveBack(
  tx: Tx,
  child: Redemption,
): Promise<Extract<RollbackReaction, { step: 'points_changed' }> | undefined> {
  if (child.related_object_type === 'voucher') {
    const stored = await tx.store.vouchers.get(child.related_object_id)
    if (!stored) return
    const v0 = stored.value
    if (v0.type === 'LOYALTY_CARD') {
      const card = await loadCard(tx, stored)
      const refunded = child.points_taken?.length ? await refundCard(tx, card, child.points_taken) : null
      countCardUse(tx, card, -1)
      const campaign = v0.campaign_id ? await tx.store.campaigns.get(v0.campaign_id) : undefined
      // Points returned to buckets whose time has passed lapse at once, and say so.
      if (refunded && refunded.expired > 0) emitPointsExpired(tx, card, refunded.expired, campaign?.value)
      return campaign ? { step: 'points_changed', campaign: campaign.value, card } : undefined
    }
    // The use and the credits go back as increments, like they were taken: no clash with concurrent redemptions.
    const credits = child.gift?.amount ?? 0
    tx.increment(
      'vouchers',
      v0.id,
      {
        'redemption.redeemed_quantity': -1,
        ...(v0.gift ? { 'redemption.redeemed_amount': -credits, 'gift.balance': credits } : {}),
      },
      { guard: { 'redemption.redeemed_quantity': { min: 0 } }, set: { updated_at: tx.nowIso } },
    )
    return
  }
  if (child.related_object_type === 'promotion_tier') {
    if (!(await tx.store.promotion_tiers.get(child.related_object_id))) return
    const share = tierShare(child.order)
    tx.increment('promotion_tiers', child.related_object_id, {
      'summary.redemptions.total_redeemed': -1,
      'summary.orders.total_amount': -share.amount,
      'summary.orders.total_discount_amount': -share.discount,
    })
  }
}

async function rollbackOrder(
  tx: Tx,
  parent: Redemption,
  rollbackId: string,
  children: readonly RedemptionRollback[],
  mode: RollbackOrderMode,
): Promise<WrittenOrder | null> {
  const orderId = parent.order?.id
  if (!orderId) return null
  const stored = await tx.store.orders.get(orderId)
  if (!stored) return null
  const entry = stored.value.redemptions?.[parent.id]
  const reverted = mode === 'WITH_ORDER' && parent.order ? revertOrder(stored.value, parent.order) : stored.value
  const next: Order = {
    ...stored.value,
    ...reverted,
    id: stored.value.id,
    created_at: stored.value.created_at,
    status: mode === 'WITH_ORDER' ? 'CANCELED' : stored.value.status,
    updated_at: tx.nowIso,
    redemptions: {
      ...(stored.value.redemptions ?? {}),
      ...(entry
        ? {
            [parent.id]: {
              ...entry,
              rollback_id: rollbackId,
              rollback_date: tx.nowIso,
              rollback_stacked: children.map((c) => c.id),
            },
          }
        : {}),
    },
  }
  updateOrder(tx, stored, next)
  if (mode === 'WITH_ORDER') tx.emit('customer.order.canceled', parent.customer_id, { order: { id: next.id } })
  return { order: next, version: versionAfterWrite(stored) }
}

/** A redemption that can be rolled back: a success (`checkRollbackable` refused the rest). */
function succeeded(r: Redemption): Extract<Redemption, { result: 'SUCCESS' }> {
  if (r.result !== 'SUCCESS') throw new Error(`redemption ${r.id} failed: nothing to roll back`)
  return r
}

/** What a rollback of a stacked redemption returns. */
export interface StackedRollback {
  rollbacks: RedemptionRollback[]
  parent_rollback: RedemptionRollback
  order: CalculatedOrder | null
}
