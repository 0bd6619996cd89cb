import { describe, expect, it } from 'vitest'
import { loadHints, remember } from '../../../src/operations/kernel/load-hints'

/* The engine's load hints stay bounded (docs/postgres.md#loads): beyond their capacity the oldest go. */

describe('load hints', () => {
  it('keep at most their capacity of each kind, the oldest going first; a key kept again keeps its place', () => {
    const hints = loadHints(2)
    remember(hints.customers, 'source_id:a', 'cust_a', hints.capacity)
    remember(hints.customers, 'source_id:b', 'cust_b', hints.capacity)
    remember(hints.customers, 'source_id:a', 'cust_a2', hints.capacity)
    expect([...hints.customers]).toEqual([
      ['source_id:a', 'cust_a2'],
      ['source_id:b', 'cust_b'],
    ])
    remember(hints.customers, 'source_id:c', 'cust_c', hints.capacity)
    expect([...hints.customers.keys()]).toEqual(['source_id:b', 'source_id:c'])
  })

  it('keep nothing with a capacity of 0', () => {
    const hints = loadHints(0)
    remember(hints.customers, 'source_id:a', 'cust_a', hints.capacity)
    remember(hints.rules, 'v_1 camp_1', ['val_1'], hints.capacity)
    expect(hints.customers.size + hints.rules.size).toBe(0)
  })
})
