import fc from 'fast-check'
import { expect, it } from 'vitest'
import { compareEntries, type Entry, SortedEntries } from '../../src/memory/index-buckets'

/* The chunked sorted list the memory store's indexes use behaves as one sorted array. */
it('inserts and removals keep the entries in order, with positions as in a sorted array', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.record({
          op: fc.constantFrom('add', 'remove'),
          key: fc.integer({ min: 0, max: 50 }),
          id: fc.integer({ min: 0, max: 3000 }),
        }),
        { maxLength: 3000 },
      ),
      (ops) => {
        const list = new SortedEntries()
        const model = new Map<string, Entry>()
        for (const { op, key, id } of ops) {
          const entry = { key, id: `e${id}` }
          const existing = model.get(entry.id)
          if (existing) {
            list.remove(existing)
            model.delete(entry.id)
          }
          if (op === 'add') {
            list.insert(entry)
            model.set(entry.id, entry)
          }
        }
        const sorted = [...model.values()].sort(compareEntries)
        expect([...list]).toEqual(sorted)
        expect(list.length).toBe(sorted.length)
        for (const i of [0, Math.floor(sorted.length / 2), sorted.length - 1]) expect(list.at(i)).toEqual(sorted[i])
        const probe = { key: 25, id: '' }
        expect(list.firstWhere((e) => compareEntries(e, probe) >= 0)).toBe(
          sorted.findIndex((e) => compareEntries(e, probe) >= 0) === -1
            ? sorted.length
            : sorted.findIndex((e) => compareEntries(e, probe) >= 0),
        )
      },
    ),
    { numRuns: 60 },
  )
})
