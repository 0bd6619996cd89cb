import type { Customer } from '../../model/customer'
import { counterIds, evalCounters } from '../../rules/counters'
import {
  decideRedeemables,
  type PipelineInput,
  type PipelineResult,
  type RedeemableSubject,
} from '../../rules/redeemables'
import type { Counter, GuardRef, Stored, Write } from '../../storage/ports'
import { type Pin, withValueAt } from '../kernel/guard-alternatives'
import { type Tx, valueAt } from '../kernel/unit-of-work'
import { counterScope, recountedWrites } from './redemption-counters'

/**
 * The request's decision taken again on the snapshot it loaded, with stored fields pinned
 * (docs/storage.md#alternatives): a code's uses or balance, a counter row's count or sum. What the
 * decision does not read (a points bucket) cannot change it.
 */
export function redecision(
  loaded: {
    input: PipelineInput
    customer: Stored<Customer> | undefined
    /** The counter rows the request read (`LoadedRequest.counters`). */
    counters: ReadonlyMap<string, Counter>
  },
  tx: Tx,
): {
  reads(field: GuardRef): boolean
  read(field: GuardRef): number | undefined
  decide(pins: readonly Pin[]): PipelineResult
  rewrite(pins: readonly Pin[], on?: Tx): Write[]
  /** Whether the field is the count of a unit budget row the decision read. */
  readsUnits(field: GuardRef): boolean
} {
  const { input } = loaded
  const customer = loaded.customer?.value
  const scopes = new Map(input.subjects.map((s) => [s.index, counterScope(s, customer)]))
  // The counter rows the decision read, listed when first asked (most attempts never ask).
  let read: Set<string> | undefined
  const counterRows = {
    has(id: string): boolean {
      read ??= new Set([...scopes.values()].flatMap((scope) => (scope ? counterIds(scope) : [])))
      return read.has(id)
    },
  }
  // Unit budget rows: every subject with a budget holds the same map of the rows read, absent ones included.
  const unitRows = input.subjects.find((s) => s.unit_counters !== undefined)?.unit_counters
  const readsUnits = (field: GuardRef) =>
    field.collection === 'counters' && field.path === 'count' && unitRows?.has(field.id) === true
  return {
    reads(field) {
      if (field.collection === 'vouchers') return input.subjects.some((s) => s.voucher?.id === field.id)
      return field.collection === 'counters' && (counterRows.has(field.id) || readsUnits(field))
    },
    readsUnits,
    read(field) {
      const entity =
        field.collection === 'vouchers'
          ? input.subjects.find((s) => s.voucher?.id === field.id)?.voucher
          : field.collection === 'counters' && counterRows.has(field.id)
            ? (loaded.counters.get(field.id) ?? { id: field.id })
            : readsUnits(field)
              ? unitRows?.get(field.id)
              : undefined
      if (entity === undefined) return undefined
      // A counter's absent field counts 0, as the store adds to it.
      return valueAt(entity, field.path) ?? (field.collection === 'counters' ? 0 : undefined)
    },
    decide(pins) {
      let subjects = input.subjects
      for (const p of pins) {
        if (p.collection !== 'vouchers') continue
        subjects = subjects.map((s) =>
          s.voucher?.id === p.id ? { ...s, voucher: withValueAt(s.voucher, p.path, p.value) } : s,
        )
      }
      const units = pinnedUnits(pins)
      if (units) subjects = subjects.map((s) => (s.unit_counters === undefined ? s : { ...s, unit_counters: units }))
      const rows = pinnedRows(pins)
      if (rows) {
        subjects = subjects.map((s): RedeemableSubject => {
          const scope = scopes.get(s.index)
          return scope ? { ...s, counters: evalCounters(scope, rows, input.now, input.timeZone) } : s
        })
      }
      return decideRedeemables({ ...input, subjects })
    },
    rewrite: (pins, on = tx) => recountedWrites(on, pinnedRows(pins) ?? loaded.counters),
  }

  /** The unit budget rows read, with the pinned ones changed; undefined when no pin is one of them. */
  function pinnedUnits(pins: readonly Pin[]): Map<string, Counter> | undefined {
    let rows: Map<string, Counter> | undefined
    for (const p of pins) {
      if (!readsUnits(p) || unitRows === undefined) continue
      rows ??= new Map(unitRows)
      rows.set(p.id, withValueAt(rows.get(p.id) ?? { id: p.id }, p.path, p.value))
    }
    return rows
  }

  /** The counter rows read, with the pinned ones changed; undefined when no pin is a counter read. */
  function pinnedRows(pins: readonly Pin[]): Map<string, Counter> | undefined {
    let rows: Map<string, Counter> | undefined
    for (const p of pins) {
      if (p.collection !== 'counters' || !counterRows.has(p.id)) continue
      rows ??= new Map(loaded.counters)
      rows.set(p.id, withValueAt(rows.get(p.id) ?? { id: p.id }, p.path, p.value))
    }
    return rows
  }
}
