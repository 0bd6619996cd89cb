import type { Store } from '../../src/storage/ports'

/*
 * The store `testEngine` gives an engine when the test names none: the memory store by default; the
 * PostgreSQL project's setup (test/postgres/engine-setup.ts) installs a factory here, so the same
 * operation suites run on both stores.
 */
let factory: (() => Store) | undefined

export function useTestStore(make: (() => Store) | undefined): void {
  factory = make
}

export function defaultTestStore(): Store | undefined {
  return factory?.()
}

/** The share of a property test's runs to make on this store (each PostgreSQL run makes a fresh schema). */
let runShare = 1

export function setPropertyRunShare(share: number): void {
  runShare = share
}

/** `numRuns` for a property test: all of them on the memory store, a share on a database. */
export function propertyRuns(n: number): number {
  return Math.max(5, Math.round(n * runShare))
}
