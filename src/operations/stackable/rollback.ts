import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Order } from '../../model/order'
import type { Redemption, RedemptionRollback } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import { addDuration } from '../../rules/duration'
import { revertOrder } from '../../rules/redeemables'
import type { RollbackRequest } from '../../schema/stackable'
import type { Tx } from '../context'
import { loadCard, refundCard, updateCardVoucher } from '../loyalty-ledger'
import type { StackedRollback } from '../redemptions'

/** Rollbacks are accepted within three months of the redemption (reference §7.2). */
const ROLLBACK_WINDOW = 'P3M'

export async function rollback(
  tx: Tx,
  parentId: string,
  input: RollbackRequest,
  mode: 'WITH_ORDER' | 'WITHOUT_ORDER',
): Promise<StackedRollback> {
  const parent = await tx.store.redemptions.get(parentId)
  if (!parent) throw EngineError.notFound('redemption', parentId)
  if (parent.value.redemption !== null) {
    throw new EngineError({
      code: 400,
      key: 'invalid_redemption_parent',
      message: 'Invalid redemption parent',
      details: 'You can rollback only a redemption that does not have parent redemption.',
      path: 'parentRedemptionId',
    })
  }
  if (parent.value.status === 'ROLLED_BACK') {
    throw new EngineError({
      code: 400,
      key: 'already_rolled_back',
      message: 'Already rolled back',
      details: 'Redemption has been already rolled back.',
    })
  }
  if (parent.value.result !== 'SUCCESS') {
    throw new EngineError({
      code: 400,
      key: 'invalid_redemption',
      message: 'Invalid redemption',
      details: 'Only a successful redemption can be rolled back.',
    })
  }
  if (addDuration(new Date(parent.value.date), ROLLBACK_WINDOW).getTime() < tx.now.getTime()) {
    throw new EngineError({
      code: 400,
      key: 'rollback_period_expired',
      message: 'Rollback period expired',
      details: `Redemption ${parentId} is older than 3 months and can no longer be rolled back.`,
    })
  }
  const customerId = parent.value.customer_id
  const childIds = parent.value.related_redemptions?.redemptions ?? []
  const rollbacks: RedemptionRollback[] = []
  const parentRollbackId = tx.id(ID_PREFIX.redemption_rollback)
  for (const child of await tx.store.redemptions.getMany(childIds)) {
    const rb: RedemptionRollback = {
      id: tx.id(ID_PREFIX.redemption_rollback),
      object: 'redemption_rollback',
      date: tx.nowIso,
      redemption: child.value.id,
      reason: input.reason ?? null,
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      channel: { channel_id: null, channel_type: 'API' },
      customer_id: customerId,
      related_object_type: child.value.related_object_type,
      related_object_id: child.value.related_object_id,
      metadata: input.metadata ?? {},
    }
    if (child.value.amount !== undefined) rb.amount = -child.value.amount
    if (child.value.gift) rb.gift = { amount: -child.value.gift.amount }
    if (child.value.loyalty_card) rb.loyalty_card = { points: -child.value.loyalty_card.points }
    await giveBack(tx, child.value)
    tx.update('redemptions', child, {
      ...child.value,
      status: 'ROLLED_BACK',
      related_redemptions: {
        rollbacks: [{ id: rb.id, date: tx.nowIso, rollback_order_mode: mode }],
        redemptions: child.value.related_redemptions?.redemptions ?? [],
      },
    })
    rollbacks.push(tx.insert('redemption_rollbacks', rb))
    tx.emit('customer.redemption.rollback.succeeded', customerId, {
      rollback: { id: rb.id, redemption: child.value.id },
    })
  }
  const order = await rollbackOrder(tx, parent.value, parentRollbackId, rollbacks, mode)
  const parentRollback: RedemptionRollback = {
    id: parentRollbackId,
    object: 'redemption_rollback',
    date: tx.nowIso,
    redemption: parentId,
    reason: input.reason ?? null,
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    channel: { channel_id: null, channel_type: 'API' },
    customer_id: customerId,
    related_object_type: 'redemption',
    related_object_id: parentId,
    metadata: input.metadata ?? {},
    order,
  }
  tx.insert('redemption_rollbacks', parentRollback)
  tx.update('redemptions', parent, {
    ...parent.value,
    status: 'ROLLED_BACK',
    related_redemptions: {
      rollbacks: [{ id: parentRollbackId, date: tx.nowIso, rollback_order_mode: mode }],
      redemptions: childIds,
    },
  })
  return { rollbacks, parent_rollback: parentRollback, order }
}

/** One use, the credits and the points of a child redemption go back to its voucher or tier. */
async function giveBack(tx: Tx, child: Redemption): Promise<void> {
  if (child.related_object_type === 'voucher') {
    const stored = await tx.store.vouchers.get(child.related_object_id)
    if (!stored) return
    const v0 = stored.value
    const oneUseBack = (v: Voucher): Voucher['redemption'] => ({
      ...v.redemption,
      redeemed_quantity: Math.max(0, v.redemption.redeemed_quantity - 1),
    })
    if (v0.type === 'LOYALTY_CARD') {
      const card = await loadCard(tx, stored)
      if (child.points_taken?.length) refundCard(tx, card, child.points_taken)
      updateCardVoucher(tx, card, (v) => ({ ...v, redemption: oneUseBack(v) }))
      return
    }
    const credits = child.gift?.amount ?? 0
    tx.update('vouchers', stored, {
      ...v0,
      redemption: {
        ...oneUseBack(v0),
        ...(v0.gift ? { redeemed_amount: (v0.redemption.redeemed_amount ?? 0) - credits } : {}),
      },
      gift: v0.gift
        ? {
            ...v0.gift,
            balance: v0.gift.balance + credits,
            subtracted_amount: (v0.gift.subtracted_amount ?? 0) - credits,
          }
        : null,
      updated_at: tx.nowIso,
    })
    return
  }
  if (child.related_object_type === 'promotion_tier') {
    const stored = await tx.store.promotion_tiers.get(child.related_object_id)
    if (!stored) return
    const s = stored.value.summary
    tx.update('promotion_tiers', stored, {
      ...stored.value,
      summary: {
        redemptions: { total_redeemed: Math.max(0, s.redemptions.total_redeemed - 1) },
        orders: {
          total_amount: s.orders.total_amount - (child.order?.amount ?? 0),
          total_discount_amount: s.orders.total_discount_amount - (child.order?.total_applied_discount_amount ?? 0),
        },
      },
    })
  }
}

async function rollbackOrder(
  tx: Tx,
  parent: Redemption,
  rollbackId: string,
  children: readonly RedemptionRollback[],
  mode: 'WITH_ORDER' | 'WITHOUT_ORDER',
): Promise<Order | null> {
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
  tx.update('orders', stored, next)
  if (mode === 'WITH_ORDER') tx.emit('customer.order.canceled', parent.customer_id, { order: { id: next.id } })
  return next
}
