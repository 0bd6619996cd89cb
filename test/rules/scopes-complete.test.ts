import { describe, expect, it } from 'vitest'
import { createEngine } from '../../src/engine'
import { operationAccess } from '../../src/rules/scopes'

/** Every operation of the engine, as `namespace.method` (nested namespaces joined with dots). */
function operationsOf(engine: Record<string, unknown>): string[] {
  const walk = (o: Record<string, unknown>, prefix: string): string[] =>
    Object.entries(o).flatMap(([name, f]) =>
      typeof f === 'function'
        ? [`${prefix}${name}`]
        : typeof f === 'object' && f !== null
          ? walk(f as Record<string, unknown>, `${prefix}${name}.`)
          : [],
    )
  return Object.entries(engine)
    .filter(([name]) => name !== 'settings' && name !== 'raw')
    .flatMap(([name, ns]) => walk(ns as Record<string, unknown>, `${name}.`))
}

describe('the operation table (auth scopes)', () => {
  it('names a family and a scope for every operation the engine has', () => {
    // Host-side calls that no endpoint exposes: they authenticate, mint and rotate credentials, read
    // stored files, purge what has expired, backfill summaries.
    const hostOnly = new Set([
      'auth.authenticate',
      'auth.createApplication',
      'auth.rotateSecret',
      'files.get',
      'maintenance.purgeExpired',
      'maintenance.trimChangeFeed',
      'maintenance.backfillCustomerSummaries',
      'maintenance.backfillSessionLocks',
      'maintenance.backfillCardTransactions',
      'maintenance.backfillUnitBudgets',
      'maintenance.foldPeriodCounters',
    ])
    const missing = operationsOf(createEngine() as unknown as Record<string, unknown>).filter(
      (op) => !hostOnly.has(op) && operationAccess(op) === undefined,
    )
    expect(missing).toEqual([])
  })
})
