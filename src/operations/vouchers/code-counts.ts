import { EngineError } from '../../errors'
import type { Campaign } from '../../model/campaign'
import { codeSpace } from '../../rules/codes'
import type { Counter, Store } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'

/*
 * A campaign's figures that requests of different customers change (docs/storage.md#shared-rows): the
 * codes generated on demand live in a counter row, `g:<campaign>`, bumped by a guarded increment, so
 * a publication, a new member or an auto-join enrolment never rewrites the campaign's own row (which
 * only the operations that change its settings write). `vouchers_count` as the interface shows it is
 * the campaign's stored count (the codes its creation or generation made) plus that row's, and its
 * `updated_at` the later of the campaign's and the row's.
 */

/** The counter row of the codes a campaign generated on demand (near its pattern's capacity: the guarded one). */
export function codesCounterId(campaignId: string): string {
  return `g:${campaignId}`
}

/**
 * Shards of that count: while the pattern has room to spare, each new code is counted in one of
 * these rows, picked by a hash of the code, so concurrent requests (every new member of an auto-join
 * program) do not all queue on one row (docs/storage.md#shared-rows). The count is their sum.
 */
export const CODE_COUNT_SHARDS = 8

/** Room left in the pattern from which the shards count; below it the one guarded row counts, exactly. */
export const SHARDED_ROOM = 2 ** 32

/** Every row of a campaign's count of codes made on demand: read together, summed. */
export function codesCounterIds(campaignId: string): string[] {
  const ids = [codesCounterId(campaignId)]
  for (let k = 0; k < CODE_COUNT_SHARDS; k++) ids.push(`${codesCounterId(campaignId)}#${k}`)
  return ids
}

const countOf = (row: Counter | undefined) => (typeof row?.count === 'number' ? row.count : 0)

/** What the shards hold, read when deciding again (`checkCodeSpace`): the one row's bound leaves it out. */
export interface CodeCounts {
  shards: number
}

/**
 * Counts `n` codes generated on demand for a campaign. With room to spare in its pattern, in the shard
 * the first new code hashes to, bounded by a ninth of that room (so the shards together never pass
 * it, and the one row keeps at least its share): past it the commit fails its guard, and the
 * operation, deciding again, reads every row (`checkCodeSpace`) and counts in the one row. Near the
 * pattern's capacity, and when deciding again, in the one guarded row, bounded by the room the shards
 * leave: past it the operation, deciding again, gets the business error from `checkCodeSpace`. The
 * codes themselves are inserted under their unique `code`; a collision with a concurrent insert makes
 * the operation pick others (`Tx.claim`), so no bound here is what keeps codes distinct.
 */
export function countGeneratedCodes(
  tx: Tx,
  campaign: Campaign,
  n: number,
  path: string,
  firstCode: string,
  read?: CodeCounts,
): void {
  const space = spaceOf(campaign, path)
  const unbounded = space === Number.MAX_SAFE_INTEGER
  const room = space - campaign.vouchers_count
  const counted = { create: {}, set: { updated_at: tx.nowIso } }
  if (read === undefined && (unbounded || room >= SHARDED_ROOM)) {
    const shard = `${codesCounterId(campaign.id)}#${hash(firstCode) % CODE_COUNT_SHARDS}`
    const share = Math.floor(room / (CODE_COUNT_SHARDS + 1))
    tx.increment(
      'counters',
      shard,
      { count: n },
      unbounded ? counted : { ...counted, guard: { count: { max: share } } },
    )
    return
  }
  const left = room - (read?.shards ?? 0)
  tx.increment(
    'counters',
    codesCounterId(campaign.id),
    { count: n },
    unbounded ? counted : { ...counted, guard: { count: { max: left } } },
  )
}

/**
 * After a failed guard on a codes counter (`Tx.redeciding`): the business error when the campaign's
 * pattern cannot make `n` more codes. Reads the counter rows only then, and returns what the shards
 * hold, for `countGeneratedCodes` to bound the one row.
 */
export async function checkCodeSpace(
  tx: Tx,
  campaign: Campaign,
  n: number,
  path: string,
): Promise<CodeCounts | undefined> {
  if (!tx.redeciding) return undefined
  const space = spaceOf(campaign, path)
  const rows = new Map(
    (await tx.store.counters.getMany(codesCounterIds(campaign.id))).map((r) => [r.value.id, r.value]),
  )
  const all = codesCounterIds(campaign.id).reduce((sum, id) => sum + countOf(rows.get(id)), 0)
  const shards = all - countOf(rows.get(codesCounterId(campaign.id)))
  if (space === Number.MAX_SAFE_INTEGER) return { shards }
  const made = campaign.vouchers_count + all
  if (made + n > space) {
    throw EngineError.invalid(
      path,
      `allows only ${space} distinct codes and ${made} were made: use a longer pattern or a larger charset`,
    )
  }
  return { shards }
}

/** A string's FNV-1a hash: spreads random codes over the shards. */
function hash(text: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193)
  return h >>> 0
}

function spaceOf(campaign: Campaign, path: string): number {
  return codeSpace(campaign.voucher?.code_config ?? {}, path)
}

/** Campaigns as the interface shows them: `vouchers_count` with the codes generated on demand (one read). */
export async function withCodeCounts(store: Store, campaigns: readonly Campaign[]): Promise<Campaign[]> {
  if (campaigns.length === 0) return []
  const rows = await store.counters.getMany(campaigns.flatMap((c) => codesCounterIds(c.id)))
  const byId = new Map(rows.map((r) => [r.value.id, r.value]))
  return campaigns.map((c) => {
    const counted = codesCounterIds(c.id).flatMap((id) => byId.get(id) ?? [])
    const n = counted.reduce((sum, row) => sum + countOf(row), 0)
    if (n === 0) return c
    // A code added moves the campaign's `updated_at`, as it did when the count was the campaign's.
    const touched = counted.reduce<string | null>(
      (last, row) =>
        typeof row.updated_at === 'string' && (last === null || row.updated_at > last) ? row.updated_at : last,
      null,
    )
    const updated_at = touched !== null && (c.updated_at === null || touched > c.updated_at) ? touched : c.updated_at
    return { ...c, vouchers_count: c.vouchers_count + n, updated_at }
  })
}
