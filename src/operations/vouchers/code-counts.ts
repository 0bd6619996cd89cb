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

/** The counter row of the codes a campaign generated on demand. */
export function codesCounterId(campaignId: string): string {
  return `g:${campaignId}`
}

const countOf = (row: Counter | undefined) => (typeof row?.count === 'number' ? row.count : 0)

/**
 * Counts `n` codes generated on demand for a campaign, guarded by what its code pattern can make:
 * past it the commit fails its guard, and the operation, deciding again, gets the business error from
 * `checkCodeSpace`. The codes themselves are inserted under their unique `code`; a collision with a
 * concurrent insert makes the operation pick others (`Tx.claim`).
 */
export function countGeneratedCodes(tx: Tx, campaign: Campaign, n: number, path: string): void {
  const space = spaceOf(campaign, path)
  tx.increment(
    'counters',
    codesCounterId(campaign.id),
    { count: n },
    {
      create: {},
      set: { updated_at: tx.nowIso },
      ...(space === Number.MAX_SAFE_INTEGER ? {} : { guard: { count: { max: space - campaign.vouchers_count } } }),
    },
  )
}

/**
 * After a failed guard on the codes counter (`Tx.redeciding`): the business error when the campaign's
 * pattern cannot make `n` more codes. Reads the counter only then.
 */
export async function checkCodeSpace(tx: Tx, campaign: Campaign, n: number, path: string): Promise<void> {
  if (!tx.redeciding) return
  const space = spaceOf(campaign, path)
  if (space === Number.MAX_SAFE_INTEGER) return
  const made = campaign.vouchers_count + countOf((await tx.store.counters.get(codesCounterId(campaign.id)))?.value)
  if (made + n > space) {
    throw EngineError.invalid(
      path,
      `allows only ${space} distinct codes and ${made} were made: use a longer pattern or a larger charset`,
    )
  }
}

function spaceOf(campaign: Campaign, path: string): number {
  return codeSpace(campaign.voucher?.code_config ?? {}, path)
}

/** Campaigns as the interface shows them: `vouchers_count` with the codes generated on demand (one read). */
export async function withCodeCounts(store: Store, campaigns: readonly Campaign[]): Promise<Campaign[]> {
  if (campaigns.length === 0) return []
  const rows = await store.counters.getMany(campaigns.map((c) => codesCounterId(c.id)))
  const byId = new Map(rows.map((r) => [r.value.id, r.value]))
  return campaigns.map((c) => {
    const row = byId.get(codesCounterId(c.id))
    const n = countOf(row)
    if (n === 0) return c
    // A code added moves the campaign's `updated_at`, as it did when the count was the campaign's.
    const touched = typeof row?.updated_at === 'string' ? row.updated_at : null
    const updated_at = touched !== null && (c.updated_at === null || touched > c.updated_at) ? touched : c.updated_at
    return { ...c, vouchers_count: c.vouchers_count + n, updated_at }
  })
}
