import type { AsyncAction } from '../../model/async-action'
import { pointsExpiryDate } from '../../rules/points-expiry'
import type { Tx } from '../kernel/unit-of-work'
import { afterPointsAdded, afterPointsChanged } from './earn-points'
import { emitPointsAdded, emitPointsExpired } from './points-events'
import { activateCardPoints, expireCard, loadCard, type PendingPointsPayload } from './points-ledger'

/** The timed work of loyalty cards (`asyncActions.runPending`): points expiring, tiers lapsing, pending points activating. */

/**
 * The async work queued at a bucket's expiry instant: expires the card's due buckets, emits
 * `points_expired` and recalculates the tier on the new balance.
 */
export async function pointsExpiryHandler(tx: Tx, action: AsyncAction): Promise<unknown> {
  const { voucher_id: voucherId } = action.payload as { voucher_id: string }
  const stored = await tx.store.vouchers.get(voucherId)
  if (!stored) return { expired: 0 }
  const card = await loadCard(tx, stored)
  const expired = await expireCard(tx, card)
  if (expired === 0) return { expired: 0 }
  const campaign = stored.value.campaign_id ? await tx.store.campaigns.get(stored.value.campaign_id) : undefined
  emitPointsExpired(tx, card, expired, campaign?.value, 'AUTOMATION')
  if (campaign) await afterPointsChanged(tx, campaign.value, card)
  return { voucher_id: voucherId, expired }
}

/**
 * The async work queued at the instant a member's tier lapses (`TIER_EXPIRY_ACTION`): the tier is
 * recalculated as of then, so the downgrade or prolongation is dated when the tier expired.
 */
export async function tierExpiryHandler(tx: Tx, action: AsyncAction): Promise<unknown> {
  const { voucher_id: voucherId } = action.payload as { voucher_id: string }
  const stored = await tx.store.vouchers.get(voucherId)
  const campaign = stored?.value.campaign_id ? await tx.store.campaigns.get(stored.value.campaign_id) : undefined
  if (!stored || !campaign) return { voucher_id: voucherId }
  await afterPointsChanged(tx, campaign.value, await loadCard(tx, stored))
  return { voucher_id: voucherId }
}

/**
 * The async work queued at a pending bucket's activation instant: the points become spendable with
 * their expiry counted from now (docs/concepts.md#points-expiry), the points-added events are emitted and the tier
 * is recalculated (which may fire tier rules).
 */
export async function pendingPointsHandler(tx: Tx, action: AsyncAction): Promise<unknown> {
  const payload = action.payload as PendingPointsPayload
  const stored = await tx.store.vouchers.get(payload.voucher_id)
  if (!stored) return { activated: 0 }
  const card = await loadCard(tx, stored)
  const expiresAt = pointsExpiryDate(tx.now, payload.expiration_rules, tx.ctx.config.timezone)
  const activated = await activateCardPoints(tx, card, payload.bucket_id, expiresAt)
  if (activated === 0) return { activated: 0 }
  const campaign = stored.value.campaign_id ? await tx.store.campaigns.get(stored.value.campaign_id) : undefined
  if (campaign) {
    emitPointsAdded(tx, campaign.value, card, activated, payload.origin, 'AUTOMATION')
    await afterPointsAdded(tx, campaign.value, card)
  }
  return { voucher_id: payload.voucher_id, bucket_id: payload.bucket_id, activated }
}
