import type { CollectionName, Entity, ListQuery, Repository, Store } from '../../storage/ports'

/** How many entities each read of `listAll` asks for. */
const PAGE = 500

/**
 * Every entity a list by a declared index matches, a page at a time (a customer's codes, orders or
 * referral activities; a card's buckets for a backfill): for lists a request reads whole, which stay
 * small, or a backfill's, which read what they fill.
 */
export async function listAll<C extends CollectionName>(
  store: Store,
  collection: C,
  query: Omit<ListQuery, 'starting_after_id' | 'limit' | 'count'>,
): Promise<Entity<C>[]> {
  // Indexing the store by a generic collection name gives the union of all repositories.
  const repository = store[collection] as unknown as Repository<C>
  const out: Entity<C>[] = []
  let after: string | null = null
  do {
    const page = await repository.list({
      ...query,
      limit: PAGE,
      count: false,
      ...(after === null ? {} : { starting_after_id: after }),
    })
    for (const s of page.data) out.push(s.value)
    after = page.has_more ? page.more_starting_after : null
  } while (after !== null)
  return out
}
