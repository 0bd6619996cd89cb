import type { Change, Clock, CollectionName, IndexDeclarations, IndexType } from '../storage/ports'
import { COLLECTIONS, indexesOf, naturalKeysOf } from '../storage/ports'
import { checkDeclaration, IndexBuckets } from './index-buckets'
import type { Row } from './pages'
import { readPath } from './paths'

/** What the memory store holds: its tables, natural keys, index buckets and change feed, shared by its parts. */

/** A step of applying a commit, named for fault-injection tests (`MemoryStoreOptions.faults`). */
export interface FaultStep {
  stage: 'freeze' | 'write' | 'index'
  /** The position of the entity in the commit (0-based, in the order the changeset first touches them). */
  position: number
}

export interface MemoryStoreOptions {
  /** Indexes beyond the engine's own (`INDEXES`), for a host's own list queries. */
  indexes?: IndexDeclarations
  /**
   * A testing hook called before each step of applying a commit; throwing from it simulates a fault
   * there (a stack overflow, an out-of-memory). The commit must then leave the store as it was.
   */
  faults?: (step: FaultStep) => void
  /**
   * The clock the change feed's commit times and its trims read (docs/storage.md#trimming-the-feed):
   * the system's by default; give it the engine's clock when the engine's is not the system's (a
   * test's manual clock), so a trim ages the feed as the engine sees time pass.
   */
  clock?: Clock
}

/** What the memory store counts, for tests that assert the cost of an operation without timing it. */
export interface MemoryStoreStats {
  /** Store calls (get, getMany, findBy, findMany, list, commit, changes). */
  calls: number
  /** Stored rows a list read to answer (an index slice, or the bucket it filtered). */
  rowsExamined: number
  commits: number
}

export interface NaturalKey {
  readonly fields: readonly string[]
  /** The key's name (`fields` joined by `+`). */
  readonly name: string
  /** Key value → id. */
  readonly ids: Map<string, string>
}

export interface MemoryState {
  readonly options: MemoryStoreOptions
  readonly stats: MemoryStoreStats
  readonly tables: Map<CollectionName, Map<string, Row>>
  /** Natural keys: `collection.key` → key value → id. */
  readonly keys: Map<string, Map<string, string>>
  /** Each collection's natural keys with their maps, so a commit builds no names to find them. */
  readonly naturalKeys: Map<CollectionName, NaturalKey[]>
  readonly indexes: Map<CollectionName, IndexBuckets[]>
  /** Each declared field of a collection and its type (the first declaration's). */
  readonly declaredFields: Map<CollectionName, Map<string, IndexType>>
  /** The same as a record, built once: what a list filtered outside its index compares by. */
  readonly declaredTypes: Map<CollectionName, Readonly<Record<string, IndexType>>>
  /** Every commit's changes in order, frozen: the feed hands them out as they are. */
  readonly log: Change[]
  /** When each change of `log` was committed (ms since the epoch), for `trimChanges`. */
  readonly logTimes: number[]
  /** The last commit's sequence number. */
  seq: number
}

/**
 * A class, not an object literal: a literal's second evaluation (a process's second store) makes
 * the fields optimised code read as constants mutable, and that code is thrown away
 * (docs/design.md#one-function-per-process).
 */
class State implements MemoryState {
  readonly stats: MemoryStoreStats = { calls: 0, rowsExamined: 0, commits: 0 }
  readonly tables = new Map<CollectionName, Map<string, Row>>()
  readonly keys = new Map<string, Map<string, string>>()
  readonly naturalKeys = new Map<CollectionName, NaturalKey[]>()
  readonly indexes = new Map<CollectionName, IndexBuckets[]>()
  readonly declaredFields = new Map<CollectionName, Map<string, IndexType>>()
  readonly declaredTypes = new Map<CollectionName, Readonly<Record<string, IndexType>>>()
  readonly log: Change[] = []
  readonly logTimes: number[] = []
  seq = 0
  constructor(readonly options: MemoryStoreOptions) {}
}

/** A natural key and its map: a class, for the same reason as `State`. */
class Key implements NaturalKey {
  constructor(
    readonly fields: readonly string[],
    readonly name: string,
    readonly ids: Map<string, string>,
  ) {}
}

export function createState(options: MemoryStoreOptions): MemoryState {
  const state = new State(options)
  for (const c of COLLECTIONS) {
    state.tables.set(c, new Map())
    const natural = naturalKeysOf(c).map((fields) => new Key(fields, fields.join('+'), new Map()))
    for (const key of natural) state.keys.set(`${c}.${key.name}`, key.ids)
    state.naturalKeys.set(c, natural)
    const declared = indexesOf(c, options.indexes)
    for (const d of declared) checkDeclaration(c, d)
    state.indexes.set(
      c,
      declared.map((d) => new IndexBuckets(d)),
    )
    const fields: (readonly [string, IndexType])[] = [['id', 'text'], ...declared.flatMap((d) => [...d.on, d.sort])]
    const types = new Map(fields.reverse())
    state.declaredFields.set(c, types)
    state.declaredTypes.set(c, Object.freeze(Object.fromEntries(types)))
  }
  return state
}

export function table(state: MemoryState, c: CollectionName): Map<string, Row> {
  const t = state.tables.get(c)
  if (!t) throw new Error(`unknown collection ${c}`)
  return t
}

export function keyString(values: readonly unknown[]): string {
  return values.length === 1 ? String(values[0]) : JSON.stringify(values)
}

/** A natural key's value in an entity, or undefined when one of its fields is not a string. */
export function keyValue(value: unknown, fields: readonly string[]): string | undefined {
  if (fields.length === 1) {
    const part = readPath(value, fields[0] as string)
    return typeof part === 'string' ? part : undefined
  }
  const parts = fields.map((f) => readPath(value, f))
  return parts.every((p) => typeof p === 'string') ? keyString(parts) : undefined
}
