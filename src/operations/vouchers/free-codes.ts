import { createHash } from 'node:crypto'
import { ALPHABET, ID_PREFIX, randomString } from '../../ids'
import type { Voucher } from '../../model/voucher'
import type { Stored } from '../../storage/ports'
import { startEarly } from '../kernel/early-reads'
import type { Tx } from '../kernel/unit-of-work'

/** How many free codes a pick reads beyond those it needs; each further read of a pass doubles it. */
const MARGIN = 4

/** The first page of both passes of a pick, from one random start. */
interface FirstPages {
  start: string
  limit: number
  pages: Promise<Page[]>
}

type Page = Awaited<ReturnType<Tx['store']['vouchers']['list']>>

function readPage(tx: Tx, campaignId: string, range: { after?: string; before?: string }, limit: number) {
  return tx.store.vouchers.list({
    where: { campaign_id: campaignId, holder_id: null, id: range },
    order: { field: 'id', direction: 'asc' },
    limit,
    count: false,
  })
}

/** Both passes' first pages from a random start, read at once. */
function readFirstPages(tx: Tx, campaignId: string, limit: number): FirstPages {
  // Ids the engine makes are a prefix and random base-62: a random key falls anywhere among them.
  const start = ID_PREFIX.voucher + randomString(tx.ctx.random, 24, ALPHABET)
  const pages = Promise.all([
    readPage(tx, campaignId, { after: start }, limit),
    readPage(tx, campaignId, { before: start }, limit),
  ])
  return { start, limit, pages }
}

/** First pages read ahead of a pick, per attempt and campaign, each taken by the attempt's next pick. */
const readAhead = new WeakMap<Tx, Map<string, FirstPages>>()

/**
 * Starts reading the first pages a pick of one free code of the campaign will need, for a pick that
 * comes later in this attempt (docs/storage.md#a-new-members-reads): an enrolment reads them beside
 * the member's card, and an auto-join enrolment of a customer known to hold no card beside the
 * program's earning rules, a level before it knows it enrols. A plain read: nothing is held until the
 * pick, which skips what is held by then. The attempt's next pick of the campaign takes them; a pick
 * after that reads again, and a fork or a second attempt reads its own.
 */
export function readFreeCodesAhead(tx: Tx, campaignId: string): void {
  let byCampaign = readAhead.get(tx)
  if (!byCampaign) {
    byCampaign = new Map()
    readAhead.set(tx, byCampaign)
  }
  if (byCampaign.has(campaignId)) return
  const ahead = readFirstPages(tx, campaignId, 1 + MARGIN)
  startEarly(ahead.pages)
  byCampaign.set(campaignId, ahead)
}

/** The pages read ahead for the campaign in this attempt, once. */
function takeReadAhead(tx: Tx, campaignId: string): FirstPages | undefined {
  const byCampaign = readAhead.get(tx)
  const ahead = byCampaign?.get(campaignId)
  byCampaign?.delete(campaignId)
  return ahead
}

/**
 * Up to `count` free codes (no holder) of a campaign, skipping `exclude` (docs/storage.md#claims).
 * Concurrent publications must not all race for the oldest free code, so a pick starts at a random
 * key of the campaign's free codes (by the `(campaign_id, holder_id, id)` index: a read of the codes
 * it returns, however many there are), goes on to the last one, then wraps around to the first (the
 * first page of each read together, or earlier: `readFreeCodesAhead`).
 * It skips codes another attempt of this engine picked and has not committed yet (`Tx.heldByOthers`)
 * and holds the codes it picks, so requests of one process never pick one code twice; across
 * processes the random start keeps them apart, and the claim (a guarded increment) settles the rare
 * collision. When every free code is held by another attempt, it takes those: the guard decides.
 */
export async function pickFreeCodes(
  tx: Tx,
  campaignId: string,
  count: number,
  exclude: ReadonlySet<string> = new Set(),
): Promise<Stored<Voucher>[]> {
  const picked: Stored<Voucher>[] = []
  const heldElsewhere: Stored<Voucher>[] = []
  // The first page of both passes is read at once (docs/storage.md#load-decide-commit): a start that
  // falls past the last free code costs no second round trip, for a few more rows read. Pages read
  // ahead may be shorter than this pick wants: a pass goes on reading where its page has more.
  const first = takeReadAhead(tx, campaignId) ?? readFirstPages(tx, campaignId, count + exclude.size + MARGIN)
  const firstPages = await first.pages
  const passes = [{ after: first.start }, { before: first.start }]
  for (const [i, pass] of passes.entries()) {
    let range: { after?: string; before?: string } = pass
    let size = first.limit
    let page = firstPages[i] as Page
    for (;;) {
      for (const s of page.data) {
        if (picked.length === count) break
        if (exclude.has(s.value.id)) continue
        if (tx.heldByOthers('vouchers', s.value.id)) {
          heldElsewhere.push(s)
          continue
        }
        // Held before anything else runs: the next request's pick already skips it.
        tx.hold('vouchers', s.value.id)
        picked.push(s)
      }
      const last = page.data.at(-1)
      if (picked.length === count || !page.has_more || !last) break
      range = { ...range, after: last.value.id }
      size *= 2
      page = await readPage(tx, campaignId, range, size)
    }
    if (picked.length === count) break
  }
  return [...picked, ...heldElsewhere].slice(0, count)
}

/**
 * A publication's id. With a `source_id` the id derives from it (and from `scope`, the loyalty
 * program, when the source_id is unique per program): "is this source_id new?" is read from a list,
 * so two concurrent requests with one new source_id and different codes would both publish; with the
 * same id the second insert conflicts, and its retry finds the first publication.
 */
export function publicationId(tx: Tx, sourceId: string | null, scope?: string): string {
  if (sourceId === null) return tx.id(ID_PREFIX.publication)
  const key = scope === undefined ? `source:${sourceId}` : `${scope}:source:${sourceId}`
  return `${ID_PREFIX.publication}${createHash('sha256').update(key).digest('base64url').slice(0, 24)}`
}
