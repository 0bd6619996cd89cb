import { createHash } from 'node:crypto'
import { ALPHABET, ID_PREFIX, randomString } from '../../ids'
import type { Voucher } from '../../model/voucher'
import type { Stored } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'

/** How many free codes a pick reads beyond those it needs; each further read of a pass doubles it. */
const MARGIN = 4

/**
 * Up to `count` free codes (no holder) of a campaign, skipping `exclude` (docs/storage.md#claims).
 * Concurrent publications must not all race for the oldest free code, so a pick starts at a random
 * key of the campaign's free codes (by the `(campaign_id, holder_id, id)` index: a read of the codes
 * it returns, however many there are), goes on to the last one, then wraps around to the first (the
 * first page of each read together).
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
  // Ids the engine makes are a prefix and random base-62: a random key falls anywhere among them.
  const start = ID_PREFIX.voucher + randomString(tx.ctx.random, 24, ALPHABET)
  const picked: Stored<Voucher>[] = []
  const heldElsewhere: Stored<Voucher>[] = []
  const read = (range: { after?: string; before?: string }, limit: number) =>
    tx.store.vouchers.list({
      where: { campaign_id: campaignId, holder_id: null, id: range },
      order: { field: 'id', direction: 'asc' },
      limit,
      count: false,
    })
  const passes = [{ after: start }, { before: start }]
  const first = count + exclude.size + MARGIN
  // The first page of both passes is read at once (docs/storage.md#load-decide-commit): a start that
  // falls past the last free code costs no second round trip, for a few more rows read.
  const firstPages = await Promise.all(passes.map((pass) => read(pass, first)))
  for (const [i, pass] of passes.entries()) {
    let range: { after?: string; before?: string } = pass
    let size = first
    let page = firstPages[i] as Awaited<ReturnType<typeof read>>
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
      page = await read(range, size)
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
