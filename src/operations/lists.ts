import type { ListEnvelope } from '../model/common'
import type { Page } from '../ports'

/** The spec's list envelope around one page of stored entities. */
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
