import { ID_PREFIX } from '../../ids'
import type { ValidationSession } from '../../model/redemption'
import type { PipelineResult, RedeemableSubject } from '../../rules/redeemables'
import type { StackableRequest } from '../../schema/stackable'
import type { Stored } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'
import type { LoadedRequest } from './load-request'
import { isUnlimitedCoupon } from './redemption-counters'

type TtlUnit = ValidationSession['ttl_unit']

const UNIT_MS: Record<TtlUnit, number> = {
  DAYS: 86_400_000,
  HOURS: 3_600_000,
  MINUTES: 60_000,
  SECONDS: 1000,
  MILLISECONDS: 1,
  MICROSECONDS: 0.001,
  NANOSECONDS: 0.000001,
}

export interface SessionResult {
  key: string
  type: 'LOCK'
  ttl: number
  ttl_unit: TtlUnit
}

/**
 * Locks what a validation would redeem (docs/concepts.md#sessions, docs/behaviour.md#sessions): one use of
 * each voucher, its gift credits and its points, until the TTL passes (7 days by default), a redemption with
 * the key releases it, or `vouchers.releaseValidationSession` does. Reusing a key overwrites that session's
 * locks. Each lock also rewrites its voucher, so two concurrent locks of one code cannot both pass the
 * quantity check: one commit conflicts and re-validates. Returns the session only when at least one lock was
 * written: a validation that would redeem no code (invalid in ALL mode, nothing applicable, promotion tiers
 * only) locks nothing, and telling the client a session exists would be a lie.
 */
export async function lockSession(
  tx: Tx,
  request: NonNullable<StackableRequest['session']>,
  loaded: LoadedRequest,
  decision: PipelineResult,
): Promise<SessionResult | undefined> {
  const key = request.key ?? tx.id(ID_PREFIX.session)
  const ttl = request.ttl ?? 7
  const ttlUnit: TtlUnit = request.ttl_unit ?? 'DAYS'
  const expiresAt = new Date(tx.now.getTime() + Math.ceil(ttl * UNIT_MS[ttlUnit])).toISOString()
  const existing = await tx.store.sessions.list({ where: { key }, count: false })
  const previous = new Map<string, Stored<ValidationSession>>()
  for (const s of existing.data) if (s.value.voucher_id) previous.set(s.value.voucher_id, s)

  const bySubject = new Map(loaded.input.subjects.map((s) => [s.index, s]))
  let locked = 0
  for (const outcome of decision.outcomes) {
    if (outcome.status !== 'APPLICABLE' || !decision.redeem.includes(outcome.index)) continue
    const subject = bySubject.get(outcome.index) as RedeemableSubject
    const voucher = subject.voucher && loaded.vouchers.get(subject.voucher.id)
    if (!voucher) continue
    const lock: ValidationSession = {
      id: previous.get(voucher.value.id)?.value.id ?? tx.id(ID_PREFIX.session),
      key,
      voucher_id: voucher.value.id,
      promotion_tier_id: null,
      type: 'LOCK',
      ttl,
      ttl_unit: ttlUnit,
      credits: outcome.gift?.credits ?? 0,
      points: outcome.loyalty_card?.points ?? 0,
      expires_at: expiresAt,
      created_at: previous.get(voucher.value.id)?.value.created_at ?? tx.nowIso,
      released_at: null,
    }
    const old = previous.get(voucher.value.id)
    if (old) tx.update('sessions', old, lock)
    else tx.insert('sessions', lock)
    // Rewriting a capped code (or a card with a balance) makes concurrent locks of it conflict, so the
    // quantity and balance checks hold; an unlimited coupon has nothing to protect.
    if (!isUnlimitedCoupon(voucher.value)) tx.update('vouchers', voucher, voucher.value)
    locked++
  }
  return locked > 0 ? { key, type: 'LOCK', ttl, ttl_unit: ttlUnit } : undefined
}

/** Releases every live lock of a session key (a redemption with the key, or an explicit release). */
export async function releaseSession(tx: Tx, key: string, voucherId?: string): Promise<number> {
  const sessions = await tx.store.sessions.list({
    where: voucherId ? { key, voucher_id: voucherId, released_at: null } : { key, released_at: null },
    count: false,
  })
  for (const s of sessions.data) tx.update('sessions', s, { ...s.value, released_at: tx.nowIso })
  return sessions.data.length
}
