import { ID_PREFIX } from '../../ids'
import type { Campaign } from '../../model/campaign'
import type { LoyaltyTier, MemberTierState } from '../../model/loyalty'
import { effectiveTierId, lapseInstant, type MemberTierStanding, type TierEvent } from '../../rules/tiers'
import type { Stored, Write } from '../../storage/ports'
import { startEarly } from '../kernel/early-reads'
import { enqueue } from '../kernel/jobs'
import { upgradeMemberTier } from '../kernel/shape-upgrades'
import type { Tx } from '../kernel/unit-of-work'
import { slotsOf } from './card-slots'
import { type CardState, cardTierMark, moveCardTierMark } from './points-ledger'

/**
 * A member's standing in a program's tiers, stored per card (`member_tiers`, id derived from the
 * card's id so it is read without a query), and its recalculation after the points change.
 */

const tierCache = new WeakMap<Tx, Map<string, LoyaltyTier[]>>()

/** The program's tiers, lowest range first (read once per transaction). */
export async function campaignTiers(tx: Tx, campaignId: string): Promise<LoyaltyTier[]> {
  let byCampaign = tierCache.get(tx)
  if (!byCampaign) {
    byCampaign = new Map()
    tierCache.set(tx, byCampaign)
  }
  const known = byCampaign.get(campaignId)
  if (known) return known
  const page = await tx.store.loyalty_tiers.list({ where: { campaign_id: campaignId }, count: false })
  const tiers = page.data.map((s) => s.value).sort((a, b) => a.points.from - b.points.from)
  byCampaign.set(campaignId, tiers)
  return tiers
}

/**
 * Makes this transaction see the program's tiers including ones it inserted (the store shows only
 * committed ones), so a recalculation in the same transaction uses them.
 */
export function primeCampaignTiers(tx: Tx, campaignId: string, tiers: readonly LoyaltyTier[]): void {
  let byCampaign = tierCache.get(tx)
  if (!byCampaign) {
    byCampaign = new Map()
    tierCache.set(tx, byCampaign)
  }
  byCampaign.set(
    campaignId,
    [...tiers].sort((a, b) => a.points.from - b.points.from),
  )
}

/** The program's tiers if this transaction read or primed them already. */
export function knownCampaignTiers(tx: Tx, campaignId: string): LoyaltyTier[] | undefined {
  return tierCache.get(tx)?.get(campaignId)
}

/** The async work queued at the instant a member's tier lapses: the tier is recalculated then. */
export const TIER_EXPIRY_ACTION = 'loyalty.tier_expiry'

export function memberTierId(voucherId: string): string {
  return `${ID_PREFIX.member_tier}${voucherId}`
}

const standingCache = new WeakMap<
  Tx,
  Map<string, Promise<{ stored: Stored<MemberTierState> | null; value: MemberTierState | null }>>
>()

async function standingSlot(tx: Tx, voucherId: string) {
  let map = standingCache.get(tx)
  if (!map) {
    map = new Map()
    standingCache.set(tx, map)
  }
  let slot = map.get(voucherId)
  if (!slot && slotsOf(tx).get(voucherId)?.stored.version === 0) {
    // A card this transaction makes (version 0: not stored yet) has a fresh id, so no standing can be
    // stored under it: an auto-join enrolment reads nothing for it (docs/storage.md#a-members-tier).
    slot = Promise.resolve({ stored: null, value: null })
    map.set(voucherId, slot)
  }
  if (!slot) {
    slot = tx.store.member_tiers.get(memberTierId(voucherId)).then((found) => {
      const stored = found ?? null
      // Tier dates stored as instants by earlier versions read as dates; the upgrade needs the engine's zone.
      return { stored, value: stored ? upgradeMemberTier(stored.value, tx.ctx.config.timezone) : null }
    })
    map.set(voucherId, startEarly(slot))
  }
  return slot
}

function standingOf(state: MemberTierState | null): MemberTierStanding | null {
  if (state === null) return null
  return { tier_id: state.tier_id, previous_tier_id: state.previous_tier_id ?? null, expiration: state.expiration }
}

const decidedOnTier = new WeakSet<Tx>()

/**
 * Notes that this transaction decided something on the member's tier beyond the loyalty cascade (a
 * reward's cost by tier, a redemption's validation rules): an answer prepared for a tier held at
 * commit other than the one read would keep that decision, so none is (docs/storage.md#a-members-tier).
 */
export function noteTierDecision(tx: Tx): void {
  decidedOnTier.add(tx)
}

export function decidesOnTier(tx: Tx): boolean {
  return decidedOnTier.has(tx)
}

/** The tier in force for a card now (a deferred NEXT_PERIOD start keeps the previous tier until then). */
export async function memberTier(tx: Tx, card: CardState): Promise<LoyaltyTier | null> {
  noteTierDecision(tx)
  const campaignId = card.voucher.campaign_id
  if (!campaignId) return null
  const slot = await standingSlot(tx, card.voucher.id)
  const id = effectiveTierId(standingOf(slot.value), tx.now, tx.ctx.config.timezone)
  if (id === null) return null
  const tier = (await campaignTiers(tx, campaignId)).find((t) => t.id === id)
  if (!tier) return null
  const expiration = slot.value?.expiration
  return expiration ? { ...tier, expiration } : tier
}

/** The member's standing as this transaction sees it (its own earlier changes included). */
export async function memberStanding(tx: Tx, voucherId: string): Promise<MemberTierStanding | null> {
  return standingOf((await standingSlot(tx, voucherId)).value)
}

/** The member's standing as stored when this transaction read it (before its own tier moves). */
export async function storedStanding(tx: Tx, voucherId: string): Promise<MemberTierStanding | null> {
  const slot = await standingSlot(tx, voucherId)
  return standingOf(slot.stored ? upgradeMemberTier(slot.stored.value, tx.ctx.config.timezone) : null)
}

/**
 * Whether the card and the standing as read agree (read apart, a tier move may land between them):
 * the standing names the card's tier mark it was written with; one written before marks agrees with
 * a card that has none.
 */
export async function standingAgrees(tx: Tx, voucherId: string, cardMark: number): Promise<boolean> {
  const stored = (await standingSlot(tx, voucherId)).stored
  if (!stored) return cardMark === 0
  return (stored.value.mark ?? 0) === cardMark
}

/**
 * A tier's rank in the program's tiers, lowest range first, from 1; 0 for none (or a tier no longer
 * in the program). The card's tier mark moves by the difference of ranks (docs/storage.md#a-members-tier).
 */
export function tierRank(tiers: readonly Pick<LoyaltyTier, 'id'>[], tierId: string | null | undefined): number {
  if (tierId == null) return 0
  return tiers.findIndex((t) => t.id === tierId) + 1
}

/**
 * How far apart ranks sit in the tier mark: the balance it is guarded with stays below it, so the
 * value the guard compares (mark plus balance) names both the tier held and the balance at commit.
 */
export const TIER_MARK_UNIT = 2 ** 40

const standingWritesOf = new WeakMap<Tx, Map<string, Set<Write>>>()

/** The writes this transaction's tier moves of the card made (the standing, its events, its lapse). */
export function standingWritesIn(tx: Tx, voucherId: string): ReadonlySet<Write> {
  return standingWritesOf.get(tx)?.get(voucherId) ?? new Set()
}

/**
 * Writes a standing the cascade decided (`src/rules/loyalty-cascade`) and emits its tier events
 * (`customer.loyalty.tier.*`); the tier lapse is queued at the end of its expiration day. The card's
 * tier mark moves with the rank in the same commit.
 */
export async function writeStanding(
  tx: Tx,
  campaign: Campaign,
  card: CardState,
  standing: MemberTierStanding,
  events: readonly TierEvent[],
): Promise<void> {
  if (!card.voucher.holder_id) return
  const [tiers, slot] = await Promise.all([campaignTiers(tx, campaign.id), standingSlot(tx, card.voucher.id)])
  const start = tx.writes.length
  const read = await storedStanding(tx, card.voucher.id)
  const mark =
    cardTierMark(tx, card).read + (tierRank(tiers, standing.tier_id) - tierRank(tiers, read?.tier_id)) * TIER_MARK_UNIT
  const next = standingWrites(tx, campaign, card, tiers, standing, events, mark)
  let mine = standingWritesOf.get(tx)
  if (!mine) {
    mine = new Map()
    standingWritesOf.set(tx, mine)
  }
  const own = mine.get(card.voucher.id) ?? new Set()
  for (const w of tx.writes.slice(start)) own.add(w)
  mine.set(card.voucher.id, own)
  moveCardTierMark(tx, card, (tierRank(tiers, next.tier_id) - tierRank(tiers, slot.value?.tier_id)) * TIER_MARK_UNIT)
  slot.value = next
}

/**
 * The writes of a tier move, into `tx.writes` and nothing else: the standing, an upsert that sets its
 * fields (no version: the card's tier mark, guarded with the balance, orders tier moves; docs/storage.md#a-members-tier),
 * the lapse job, the events. Returns the standing written.
 */
export function standingWrites(
  tx: Tx,
  campaign: Campaign,
  card: CardState,
  tiers: readonly LoyaltyTier[],
  standing: MemberTierStanding,
  events: readonly TierEvent[],
  mark: number,
): MemberTierState {
  const customerId = card.voucher.holder_id ?? null
  const timeZone = tx.ctx.config.timezone
  const next: MemberTierState = {
    id: memberTierId(card.voucher.id),
    voucher_id: card.voucher.id,
    campaign_id: campaign.id,
    customer_id: customerId,
    tier_id: standing.tier_id,
    previous_tier_id: standing.previous_tier_id,
    expiration: standing.expiration,
    updated_at: tx.nowIso,
    mark,
  }
  tx.increment(
    'member_tiers',
    next.id,
    {},
    {
      create: { ...next },
      set: {
        tier_id: next.tier_id,
        previous_tier_id: next.previous_tier_id,
        expiration: next.expiration,
        updated_at: next.updated_at,
        mark,
      },
    },
  )
  // The tier lapses at the end of its expiration day, whether or not the points move again by then.
  const last = next.expiration?.expiration_date
  if (last != null)
    enqueue(tx, TIER_EXPIRY_ACTION, { voucher_id: card.voucher.id }, new Date(lapseInstant(last, timeZone)))
  const names = new Map(tiers.map((t) => [t.id, t.name]))
  for (const event of events) {
    tx.emit(
      event.type,
      customerId,
      {
        tier: { id: event.tier_id, name: names.get(event.tier_id) ?? null },
        from_tier:
          event.from_tier_id === null ? null : { id: event.from_tier_id, name: names.get(event.from_tier_id) ?? null },
        to_tier: event.to_tier_id === null ? null : { id: event.to_tier_id, name: names.get(event.to_tier_id) ?? null },
        expiration: next.expiration,
        voucher: { id: card.voucher.id, code: card.voucher.code },
      },
      { campaign_id: campaign.id, campaign_type: campaign.campaign_type, category: 'EFFECT' },
    )
  }
  return next
}
