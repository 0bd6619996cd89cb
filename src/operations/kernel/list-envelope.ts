import type { ListEnvelope } from '../../model/common'
import type { Page } from '../../storage/ports'

/** The service interface's list envelope around one page of stored entities. */
export function envelope<K extends string, T>(
  dataRef: K,
  page: Page<T>,
  options: { total?: boolean; cursor?: boolean } = {},
): ListEnvelope<K, T> {
  const list = { object: 'list', data_ref: dataRef, [dataRef]: page.data.map((s) => s.value) } as ListEnvelope<K, T>
  if (options.total !== false) list.total = page.total
  if (options.cursor) {
    list.has_more = page.has_more
    list.more_starting_after = page.more_starting_after
  }
  return list
}

/**
 * One cursor page of rows already read and sorted, after a predicate the store cannot evaluate (the
 * `filters` of template and holder lists): `starting_after_id` continues after that row's place among
 * the rows read, whether or not it passes the predicate (an id not among them gives an empty page;
 * docs/storage.md#cursors), `limit` rows follow. `total` counts every row that passed the predicate.
 */
export function cursorPage<T extends { id: string }>(
  rows: Page<T>['data'],
  keep: (value: T) => boolean,
  options: { limit: number; starting_after_id?: string | undefined },
): Page<T> {
  let from = 0
  if (options.starting_after_id !== undefined) {
    const at = rows.findIndex((s) => s.value.id === options.starting_after_id)
    from = at === -1 ? rows.length : at + 1
  }
  let total = 0
  const data: Page<T>['data'] = []
  let has_more = false
  for (const [i, s] of rows.entries()) {
    if (!keep(s.value)) continue
    total++
    if (i < from) continue
    if (data.length < options.limit) data.push(s)
    else has_more = true
  }
  return {
    data,
    total,
    has_more,
    more_starting_after: has_more ? (data.at(-1)?.value.id ?? null) : null,
  }
}
