import { createHash } from 'node:crypto'
import { ID_PREFIX } from '../ids'
import type { Voucher } from '../model/voucher'
import type { Stored } from '../ports'
import type { Tx } from './context'

/**
 * Up to `count` free codes (no holder) of a campaign, from a random window among them, skipping
 * `exclude`. Concurrent publications each take their own codes instead of all racing for the oldest
 * one (docs/storage.md#claims); the claim itself is guarded at commit, and the rare two requests that
 * still pick one code decide again. Two reads: how
 * many are free, then the window.
 */
export async function pickFreeCodes(
  tx: Tx,
  campaignId: string,
  count: number,
  exclude: ReadonlySet<string> = new Set(),
): Promise<Stored<Voucher>[]> {
  const where = { campaign_id: campaignId, holder_id: null }
  const order = { field: 'created_at', direction: 'asc' } as const
  const { total } = await tx.store.vouchers.list({ where, order, limit: 0 })
  const wanted = count + exclude.size
  if (total <= wanted) {
    const all = await tx.store.vouchers.list({ where, order, limit: wanted })
    return all.data.filter((s) => !exclude.has(s.value.id)).slice(0, count)
  }
  // One of the windows of `wanted` consecutive free codes, at random.
  const page = 1 + Math.floor(tx.ctx.random() * Math.floor(total / wanted))
  const window = (await tx.store.vouchers.list({ where, order, limit: wanted, page })).data
  const picked = window.filter((s) => !exclude.has(s.value.id)).slice(0, count)
  if (picked.length >= count) return picked
  // Other processes claimed codes between the two reads and the free set shrank below this window:
  // take the first free ones instead (a third read, only then).
  const first = await tx.store.vouchers.list({ where, order, limit: wanted })
  return first.data.filter((s) => !exclude.has(s.value.id)).slice(0, count)
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
