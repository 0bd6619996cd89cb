import type { CollectionName, Repository, Store } from 'promo-engine/storage'

const PAGE = 100

/**
 * Every collection of a store as canonical JSON: collections and object keys sorted, each
 * collection's rows `{ value, version, shape }` in id order, read through the public `list` in pages of
 * 100 (ordered by id, continued with `starting_after_id`, no `where`), so it works on any adapter.
 * Two dumps are equal exactly when the stores hold the same entities at the same versions: compare
 * them around a refused call to prove it wrote nothing. A stored value JSON cannot carry faithfully
 * (`undefined`, `NaN`, `±Infinity`, a function, a class instance…) throws, naming where it is, so a
 * dump is also the proof that whatever was stored reads back from JSON unchanged.
 */
export async function dumpStore(store: Store): Promise<string> {
  // Every repository the store exposes (whatever else it has, like the change feed), by name.
  const repositories = store as unknown as Record<string, Partial<Repository<CollectionName>> | undefined>
  const names = Object.keys(store)
    .filter((name) => typeof repositories[name]?.list === 'function')
    .sort()
  const out: string[] = []
  for (const name of names) {
    const repo = repositories[name] as Repository<CollectionName>
    const rows: string[] = []
    let after: string | undefined
    for (;;) {
      const page = await repo.list({
        order: { field: 'id', direction: 'asc' },
        limit: PAGE,
        ...(after === undefined ? {} : { starting_after_id: after }),
      })
      for (const row of page.data) {
        const id = (row.value as { id: string }).id
        rows.push(canonicalJson({ value: row.value, version: row.version, shape: row.shape }, `${name}/${id}`))
      }
      const last = page.data.at(-1)
      if (!page.has_more || last === undefined) break
      after = (last.value as { id: string }).id
    }
    out.push(`${JSON.stringify(name)}:[${rows.join(',')}]`)
  }
  return `{${out.join(',')}}`
}

/** JSON with object keys sorted; throws on anything JSON would drop or change. */
export function canonicalJson(value: unknown, where = 'value'): string {
  switch (typeof value) {
    case 'string':
    case 'boolean':
      return JSON.stringify(value)
    case 'number':
      if (!Number.isFinite(value)) throw new Error(`${where} is ${value}, not JSON`)
      return JSON.stringify(value)
    case 'object': {
      if (value === null) return 'null'
      if (Array.isArray(value)) {
        const items: string[] = []
        for (let i = 0; i < value.length; i++) items.push(canonicalJson(value[i], `${where}[${i}]`))
        return `[${items.join(',')}]`
      }
      const proto = Object.getPrototypeOf(value)
      if (proto !== Object.prototype && proto !== null) {
        throw new Error(`${where} is a ${proto?.constructor?.name ?? 'class'} instance, not JSON`)
      }
      const keys = Object.keys(value).sort()
      const entries = keys.map(
        (k) => `${JSON.stringify(k)}:${canonicalJson((value as Record<string, unknown>)[k], `${where}.${k}`)}`,
      )
      return `{${entries.join(',')}}`
    }
    default:
      throw new Error(`${where} is ${typeof value === 'undefined' ? 'undefined' : `a ${typeof value}`}, not JSON`)
  }
}
