import { describe, expect, it } from 'vitest'
import { appliedResults, placeResults } from '../../../src/rules/stacking'

type Entry = { id: string; status: 'APPLICABLE' | 'INAPPLICABLE' | 'SKIPPED' }
const a: Entry = { id: 'A', status: 'APPLICABLE' }
const b: Entry = { id: 'B', status: 'INAPPLICABLE' }
const c: Entry = { id: 'C', status: 'SKIPPED' }
const d: Entry = { id: 'D', status: 'APPLICABLE' }
const ids = (list: Entry[]) => list.map((e) => e.id)

describe('placeResults', () => {
  it('PARTIAL: redeemables holds only the applicable ones; the others only in the side lists', () => {
    const placed = placeResults([a, b, c, d], { redeemables_application_mode: 'PARTIAL' })
    expect({
      valid: placed.valid,
      redeemables: ids(placed.redeemables),
      inapplicable: ids(placed.inapplicable_redeemables),
      skipped: ids(placed.skipped_redeemables),
    }).toEqual({ valid: false, redeemables: ['A', 'D'], inapplicable: ['B'], skipped: ['C'] })
  })

  it('ALL: redeemables holds every entry in the given order, and the side lists too', () => {
    const placed = placeResults([a, b, c, d], { redeemables_application_mode: 'ALL' })
    expect({
      valid: placed.valid,
      redeemables: ids(placed.redeemables),
      inapplicable: ids(placed.inapplicable_redeemables),
      skipped: ids(placed.skipped_redeemables),
    }).toEqual({ valid: false, redeemables: ['A', 'B', 'C', 'D'], inapplicable: ['B'], skipped: ['C'] })
  })

  it('valid is true with no inapplicable entry in either mode, skipped ones included', () => {
    expect(placeResults([a, c], { redeemables_application_mode: 'ALL' }).valid).toBe(true)
    expect(placeResults([a, c], { redeemables_application_mode: 'PARTIAL' }).valid).toBe(true)
  })
})

describe('appliedResults', () => {
  it('ALL with an inapplicable entry redeems nothing; PARTIAL redeems the applicable ones', () => {
    expect(ids(appliedResults([a, b, c, d], { redeemables_application_mode: 'ALL' }))).toEqual([])
    expect(ids(appliedResults([a, b, c, d], { redeemables_application_mode: 'PARTIAL' }))).toEqual(['A', 'D'])
    expect(ids(appliedResults([a, c, d], { redeemables_application_mode: 'ALL' }))).toEqual(['A', 'D'])
  })
})
