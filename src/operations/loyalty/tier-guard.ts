import type { CascadeResult } from '../../rules/loyalty-cascade'
import { qualifyTier, sameTierBounds, transitionTier } from '../../rules/tiers'
import type { Guard, Write } from '../../storage/ports'
import { type PreparedAlternative, StaleRead, type Tx } from '../kernel/unit-of-work'
import type { LoadedProgram } from './cascade'
import {
  campaignTiers,
  decidesOnTier,
  memberStanding,
  standingAgrees,
  standingWrites,
  standingWritesIn,
  storedStanding,
  TIER_MARK_UNIT,
  tierRank,
} from './member-tiers'
import { type CardState, cardTierMark } from './points-ledger'

/*
 * A member's BALANCE tier under their own concurrent requests (docs/storage.md#a-members-tier). The
 * cascade decides the tier on the balance it read; the card's increment guards its tier mark plus
 * its balance within what that decision assumed: the tier held (the mark, ranks apart by
 * `TIER_MARK_UNIT`) and the range of balances over which the same tier qualifies. The value that guard
 * finds at commit names both, so where the answer for each is known without reading anything again
 * the changeset carries it as an alternative: the same writes without a tier move (another request
 * made it already), or with the move to the tier the balance found qualifies for.
 */

type Increment = Extract<Write, { op: 'increment' }>

const MARK = 'tier_mark'
const BALANCE = 'loyalty_card.balance'

/** A range of balances over which the program's tiers give one answer. */
interface Segment {
  min: number
  max: number
}

/**
 * Guards the card's tier decision of this cascade, and prepares its answers where exact (see above).
 * A card written whole is checked by its version instead; a card this transaction does not change is
 * not guarded.
 */
export async function guardTier(tx: Tx, program: LoadedProgram, card: CardState, result: CascadeResult): Promise<void> {
  const config = program.campaign.loyalty_tiers_expiration
  if (program.tiers.length === 0 || (config?.qualification_type ?? 'BALANCE') !== 'BALANCE') return
  const mark = cardTierMark(tx, card)
  const write = mark.write
  if (!write) return
  const [tiers, read, now] = await Promise.all([
    campaignTiers(tx, program.campaign.id),
    storedStanding(tx, card.voucher.id),
    memberStanding(tx, card.voucher.id),
  ])
  // Read apart, the card and the standing may straddle another request's move: decide again on both.
  if (!(await standingAgrees(tx, card.voucher.id, mark.read)))
    throw new StaleRead(`vouchers/${card.voucher.id} (a tier move between the card and its standing)`)
  const readRank = tierRank(tiers, read?.tier_id)
  // The mark as stored may lag the standing (a standing written before marks were kept): the guard
  // compares with what was read, offset by the difference.
  const offset = mark.read - readRank * TIER_MARK_UNIT
  const rank = tierRank(tiers, now?.tier_id)
  const decided = segmentOf(tiers, result.balance)
  const at = (r: number, s: Segment): Guard => ({
    min: offset + r * TIER_MARK_UNIT + s.min,
    max: offset + r * TIER_MARK_UNIT + s.max,
    plus: [BALANCE],
  })
  // A later decision's guard replaces an earlier one's.
  write.guard = { ...(write.guard ?? {}), [MARK]: at(rank, decided) }

  // A later decision's answers replace an earlier one's.
  answersOf(tx).delete(card.voucher.id)
  if (!exactAnswers(program, read, readRank)) return
  // Prepared on every attempt, not only where this engine's own attempts contend on the card: a
  // member's concurrent requests usually come through several processes, which one cannot see.
  const moves: { when: Guard; by: number; guard: Guard; writes: Write[] }[] = []
  const timeZone = tx.ctx.config.timezone
  const success = at(rank, decided)
  // The request decided on the tier read beside the cascade: answers only where that tier is still held.
  const beside = decidesOnTier(tx)
  for (const s of segments(tiers)) {
    const target = qualifyTier(tiers, s.min)
    const targetRank = tierRank(tiers, target?.id)
    // The tier held at commit is `held` (the mark tells); the balance found is in `s`, within one edge
    // of it: a request of the member crosses at most one at a time.
    for (let held = 0; held <= tiers.length; held++) {
      if (Math.abs(targetRank - held) > 1 || (beside && held !== readRank)) continue
      const when = at(held + rank - readRank, s)
      if (when.min === success.min && when.max === success.max) continue
      // Another request moved the member to the tier this balance qualifies for: nothing to move.
      if (targetRank === held) {
        if (held > 0) moves.push({ when, by: 0, guard: at(held, s), writes: [] })
        continue
      }
      // The balance found qualifies for another tier than the one held: the move from it, as deciding
      // again would make it. A tier held is all a BALANCE_DROP decision reads of a standing; none held
      // is a standing of its own only where one was stored (`joined` is for a member never placed).
      const current =
        held === readRank
          ? read
          : held > 0
            ? { tier_id: tiers[held - 1]?.id ?? null, previous_tier_id: null, expiration: null }
            : null
      if (current === null) continue
      const move = transitionTier({
        tiers,
        config,
        current,
        points: s.min,
        now: tx.now,
        timeZone,
        customerId: card.voucher.holder_id ?? '',
        campaignId: program.campaign.id,
      })
      if (!move.changed || move.standing.tier_id !== (target?.id ?? null)) continue
      const start = tx.writes.length
      standingWrites(
        tx,
        program.campaign,
        card,
        tiers,
        move.standing,
        move.events,
        offset + targetRank * TIER_MARK_UNIT,
      )
      moves.push({
        when,
        by: (targetRank - held) * TIER_MARK_UNIT,
        guard: at(targetRank, s),
        writes: tx.writes.splice(start),
      })
    }
  }
  if (moves.length === 0) return
  const answers = answersOf(tx)
  const installed = installedIn.has(tx)
  installedIn.add(tx)
  answers.set(card.voucher.id, { write, moves })
  if (installed) return
  const earlier = tx.alternatives
  tx.alternatives = async () => [
    ...((await earlier?.()) ?? []),
    ...[...answers.entries()].flatMap(([id, a]) => prepare(tx, id, a)),
  ]
}

interface Answers {
  write: Increment
  moves: { when: Guard; by: number; guard: Guard; writes: Write[] }[]
}

const answersByTx = new WeakMap<Tx, Map<string, Answers>>()
const installedIn = new WeakSet<Tx>()

/** The answers of each card's latest tier decision in this transaction (a later one replaces an earlier one's). */
function answersOf(tx: Tx): Map<string, Answers> {
  let map = answersByTx.get(tx)
  if (!map) {
    map = new Map()
    answersByTx.set(tx, map)
  }
  return map
}

function prepare(tx: Tx, cardId: string, { write, moves }: Answers): PreparedAlternative[] {
  const all = tx.changeset()
  // The card written whole after all: its version guards it, and these answers no longer fit.
  if (!all.includes(write)) return []
  const own = standingWritesIn(tx, cardId)
  const base = all.filter((w) => !own.has(w))
  const ref = { collection: 'vouchers' as const, id: cardId, path: MARK }
  return moves.map((m) => ({
    when: { ...ref, ...bounds(m.when) },
    writes: [...base.map((w) => (w === write ? withMark(write, m.by, m.guard) : w)), ...m.writes],
  }))
}

/**
 * Where an answer is exact without reading again: a tier that follows the balance at once
 * (`BALANCE_DROP`, started `IMMEDIATE`), so that the tier held and the balance are all a decision
 * reads of the standing; no tier earning rules, tier mappings of earning rules or auto-redeem reward,
 * whose effects a move or the tier held would change; a standing read that names a tier of the program, or none.
 */
function exactAnswers(program: LoadedProgram, read: { tier_id: string | null } | null, readRank: number): boolean {
  const config = program.campaign.loyalty_tiers_expiration
  if ((config?.expiration_date?.type ?? 'BALANCE_DROP') !== 'BALANCE_DROP') return false
  if ((config?.start_date?.type ?? 'IMMEDIATE') !== 'IMMEDIATE') return false
  if (program.autoRedeem !== null) return false
  if (program.rules.some((r) => r.event.startsWith('customer.loyalty.tier'))) return false
  // Points earned by a tier's own mapping would differ with the tier held at commit.
  if (program.tiers.some((t) => Object.keys(t.earning_rules ?? {}).length > 0)) return false
  return read?.tier_id == null || readRank > 0
}

/** The card's increment with the tier mark moved by `by` and guarded by `guard`. */
function withMark(write: Increment, by: number, guard: Guard): Increment {
  const { [MARK]: _moved, ...rest } = write.by
  return { ...write, by: by === 0 ? rest : { ...rest, [MARK]: by }, guard: { ...(write.guard ?? {}), [MARK]: guard } }
}

function bounds(g: Guard): { min?: number; max?: number } {
  return { ...(g.min === undefined ? {} : { min: g.min }), ...(g.max === undefined ? {} : { max: g.max }) }
}

/** The range of balances around `balance` with one tier (a balance is never below 0 nor past the unit). */
function segmentOf(tiers: Parameters<typeof sameTierBounds>[0], balance: number): Segment {
  const b = sameTierBounds(tiers, balance)
  return { min: b.min ?? 0, max: b.max ?? TIER_MARK_UNIT - 1 }
}

/** Every range of balances with one tier, lowest first. */
function segments(tiers: Parameters<typeof sameTierBounds>[0]): Segment[] {
  const out: Segment[] = []
  let at = 0
  for (;;) {
    const s = segmentOf(tiers, at)
    out.push({ min: Math.max(0, s.min), max: s.max })
    if (s.max >= TIER_MARK_UNIT - 1) return out
    at = s.max + 1
  }
}
