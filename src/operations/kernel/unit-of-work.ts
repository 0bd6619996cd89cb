import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { AsyncAction } from '../../model/async-action'
import type { ActivityEvent } from '../../model/customer'
import { takenId } from '../../schema/injected'
import type {
  Alternative,
  Clock,
  CollectionName,
  CommitResult,
  Conflict,
  Entity,
  Guard,
  GuardRef,
  IdGenerator,
  RandomSource,
  Store,
  Stored,
  StoredRow,
  Write,
} from '../../storage/ports'
import type { EngineConfig } from './engine-config'
import type { InFlight } from './in-flight'
import type { LoadHints } from './load-hints'
import { currentShape } from './shape-versions'

/**
 * The work of one kind of async action. `run` gets the action's own transaction: its writes and the
 * action's `DONE` status commit together (or neither), and a conflict re-runs it on fresh reads.
 * Its return value becomes the action's `result`, unless it is `continueLater(state)`: work too large
 * for one commit (an export) does a bounded step, and its writes commit with `state` (its cursor) on
 * the action, which stays `IN_PROGRESS`; the next step gets that state as `action.state`. A step and
 * its cursor commit together, so a crash between steps neither repeats nor skips work.
 */
export interface AsyncHandler {
  run(tx: Tx, action: AsyncAction): Promise<unknown>
  /** Records a failure on the handler's own resources, in the commit that marks the action `FAILED`. */
  onFailure?(tx: Tx, action: AsyncAction, error: Error): Promise<void>
  /**
   * Timed work (points expiring, pending points activating): the run is dated by the action's due
   * instant (`run_at`), not by when the runner got to it, so a runner that runs hours late writes
   * the same ledger, activity dates and expiry dates as one that ran on time.
   */
  datedAtDue?: boolean
}

/** The handlers of one engine, by action type (per engine, so two engines never share work). */
export type AsyncHandlers = Map<string, AsyncHandler>

/** What every operation gets: the ports and the configuration. */
export interface Context {
  store: Store
  clock: Clock
  ids: IdGenerator
  random: RandomSource
  config: EngineConfig
  /** What runs each type of async action (`asyncActions.runPending`); per engine. */
  asyncHandlers: AsyncHandlers
  /** A counter that orders what this engine emits: activity ids sort in emission order. */
  sequence: { next(): number }
  /** What this engine's attempts in flight hold (docs/storage.md#contention). */
  inFlight: InFlight
  /** What this engine's validations and redemptions found in their first level of reads (docs/postgres.md#loads). */
  hints: LoadHints
}

/**
 * How many engines' attempts in flight `Tx.mayFail` assumes beside this one's (this engine's count,
 * times this): a field that many processes could push past its bound prepares its answers.
 */
const IN_FLIGHT_PEERS = 4

/** An alternative an attempt prepared, with how the operation's result follows when the store applies it. */
export interface PreparedAlternative extends Alternative {
  /**
   * The result, given the guards that failed (each with the value it found) and the commit (the
   * values after it). Absent when the alternative writes the attempt's own decision (counted on
   * other values): its result stands.
   */
  result?: (failed: readonly Conflict[], committed: Committed) => unknown
}

/**
 * One attempt of a state-changing operation: reads go to the store, writes are collected here and
 * committed once. `now` is read once per attempt so every timestamp of a changeset agrees.
 */
export class Tx {
  readonly writes: Write[] = []
  readonly now: Date
  readonly nowIso: string
  /** This attempt decides again after a failed guard. */
  readonly redeciding: boolean
  /**
   * What caches of plain store reads are kept under (a read once per transaction): an attempt's
   * forks share it, since they answer on the snapshot the attempt read.
   */
  readonly reads: object

  constructor(
    readonly ctx: Context,
    options: { redeciding?: boolean; now?: Date; reads?: object } = {},
  ) {
    this.now = options.now ?? ctx.clock.now()
    this.nowIso = this.now.toISOString()
    this.redeciding = options.redeciding ?? false
    this.reads = options.reads ?? {}
  }

  /**
   * A fresh attempt at the same instant, on `ctx` (the same engine's, or one that records or replays
   * its ids), starting with `writes`: an alternative begins with what both answers share.
   */
  fork(writes: readonly Write[], ctx: Context = this.ctx): Tx {
    const tx = new Tx(ctx, { now: this.now, reads: this.reads })
    for (const w of writes) {
      if (w.op === 'put') tx.placed(`${w.collection}/${(w.value as { id: string }).id}`, tx.writes.length)
      tx.writes.push(w)
    }
    return tx
  }

  get store(): Store {
    return this.ctx.store
  }

  id(prefix: string): string {
    const id = this.ctx.ids(prefix)
    this.made.add(id)
    return id
  }

  /** The ids this attempt drew: an insert of one that the store finds taken is the generator's fault. */
  readonly made = new Set<string>()

  /**
   * Where each entity put so far sits in `writes`, so a second update finds it without a scan. Made
   * on first use, like the other sets below: most attempts write little or nothing.
   */
  private puts: Map<string, number> | undefined

  private placed(slot: string, at: number): void {
    this.puts ??= new Map()
    this.puts.set(slot, at)
  }

  insert<C extends CollectionName>(collection: C, value: Entity<C>): Entity<C> {
    this.placed(`${collection}/${(value as { id: string }).id}`, this.writes.length)
    this.writes.push({ op: 'put', collection, value, expectedVersion: null, shape: currentShape(collection) } as Write)
    return value
  }

  /** Writes the next version of an entity read as `stored`; the commit fails if it moved meanwhile. */
  update<C extends CollectionName>(collection: C, stored: Stored<Entity<C>>, next: Entity<C>): Entity<C> {
    const slot = `${collection}/${(next as { id: string }).id}`
    const existing = this.puts?.get(slot)
    if (existing !== undefined) {
      // A second update of the same entity in one operation replaces the first, keeping the version read.
      const first = this.writes[existing] as Extract<Write, { op: 'put' }>
      this.writes[existing] = { ...first, value: next } as Write
      return next
    }
    this.placed(slot, this.writes.length)
    this.writes.push({
      op: 'put',
      collection,
      value: next,
      expectedVersion: stored.version,
      shape: currentShape(collection),
    } as Write)
    return next
  }

  /**
   * Adds to counters without a version check: concurrent increments all land. `guard` bounds the
   * result (a failed guard makes the operation decide again on fresh values), `create` makes the
   * entity on first use, `set` assigns plain fields alongside, `unset` removes top-level ones
   * (docs/storage.md#counters).
   */
  increment(
    collection: CollectionName,
    id: string,
    by: Record<string, number>,
    options: {
      guard?: Record<string, Guard>
      create?: Record<string, unknown>
      set?: Record<string, unknown>
      unset?: readonly string[]
    } = {},
  ): void {
    if (options.guard && Object.keys(options.guard).length > 0) {
      this.hold(collection, id)
      for (const [path, bound] of Object.entries(options.guard)) {
        const field = `${collection}/${id}:${path}`
        const n = by[path] ?? 0
        this.ctx.inFlight.pend(field, n)
        this.pending.push({ field, collection, id, path, by: n, bound })
      }
    }
    this.writes.push({
      op: 'increment',
      collection,
      id,
      by,
      ...options,
      ...(options.create ? { shape: currentShape(collection) } : {}),
    })
  }

  /** This attempt's guarded increments, by field (`collection/id:path`), as `InFlight` counts them. */
  private readonly pending: (GuardRef & { field: string; by: number; bound: Guard })[] = []

  /** The guards of this attempt's increments, each with what its write adds and its bound. */
  guards(): readonly (GuardRef & { by: number; bound: Guard })[] {
    return this.pending
  }

  private held: Set<string> | undefined

  /** Holds an entity until this attempt ends: the engine's other attempts see it (`heldByOthers`). */
  hold(collection: CollectionName, id: string): void {
    const slot = `${collection}/${id}`
    this.held ??= new Set()
    if (this.held.has(slot)) return
    this.held.add(slot)
    this.ctx.inFlight.add(slot)
  }

  /** Whether another attempt of this engine in flight holds the entity. */
  heldByOthers(collection: CollectionName, id: string): boolean {
    const slot = `${collection}/${id}`
    return this.ctx.inFlight.count(slot) > (this.held?.has(slot) ? 1 : 0)
  }

  /** Ends this attempt's holds (`mutate`, once its commit is answered). */
  release(): void {
    if (this.held) {
      for (const slot of this.held) this.ctx.inFlight.remove(slot)
      this.held.clear()
    }
    if (this.pending.length === 0) return
    for (const { field, by } of this.pending) this.ctx.inFlight.unpend(field, by)
    this.pending.length = 0
  }

  /**
   * Reports the stored values of this attempt's guarded fields that its commit found (after its
   * increments, or, for failed guards, before them), for the estimates of the attempts still in flight.
   */
  sawCommit(outcome: CommitResult): void {
    const byField = new Map(this.pending.map((p) => [p.field, p.by]))
    const found = (c: Conflict) => {
      const field = `${c.collection}/${c.id}:${c.guard?.path}`
      const by = byField.get(field)
      if (c.guard && by !== undefined) this.ctx.inFlight.saw(field, c.guard.value - by)
    }
    if (!outcome.ok) found(outcome.conflict)
    else if (outcome.alternative) outcome.alternative.failed.forEach(found)
    else {
      for (const { field, collection, id, path } of this.pending) {
        const n = valueAt(outcome.values[`${collection}/${id}`], path)
        if (n !== undefined) this.ctx.inFlight.saw(field, n)
      }
    }
  }

  /**
   * Whether a guard may fail, so that preparing its answer pays (docs/storage.md#contention): this
   * attempt decides again after a failed guard; the host's transaction leaves no second attempt; or
   * what this engine's attempts in flight add to the field, from the value read (or a later one a
   * commit reported), taken `IN_FLIGHT_PEERS` times for the processes it cannot see, could pass the
   * bound. A guard other processes make fail beyond that is answered by deciding again, which then prepares.
   */
  mayFail(field: GuardRef, bound: Guard, read: number | undefined): boolean {
    if (this.redeciding || this.ctx.store.hostTransaction === true || read === undefined) return true
    const key = `${field.collection}/${field.id}:${field.path}`
    const { sum, seen = read } = this.ctx.inFlight.field(key)
    // Other processes' attempts are not seen. Where this engine's own attempts contend on the field,
    // count as many again from each of a few of them, so that where several processes share a field
    // near its bound, their refusals are answered in one commit too; an attempt alone counts itself.
    const own = this.pending.reduce((n, p) => (p.field === key ? n + p.by : n), 0)
    const reach = sum === own ? sum : sum * IN_FLIGHT_PEERS
    if (bound.max !== undefined && Math.max(read, seen) + reach > bound.max) return true
    return bound.min !== undefined && Math.min(read, seen) + reach < bound.min
  }

  /**
   * Prepares alternatives once the attempt's writes are complete (`offerAlternatives` sets it;
   * `mutate` calls it before committing).
   */
  alternatives: (() => PreparedAlternative[] | Promise<PreparedAlternative[]>) | undefined

  /**
   * Steps every answer of this attempt ends with, its own writes' and each alternative's: the
   * idempotency record (`withIdempotency`), given the result it records.
   */
  readonly finishers: ((tx: Tx, result: unknown) => void)[] = []

  private withdrawn: Set<Write> | undefined

  /** Takes back a write of this attempt (a later write of the same entity supersedes it). */
  withdraw(write: Write): void {
    this.withdrawn ??= new Set()
    this.withdrawn.add(write)
  }

  /** The writes to commit. */
  changeset(): Write[] {
    const withdrawn = this.withdrawn
    return withdrawn === undefined || withdrawn.size === 0 ? this.writes : this.writes.filter((w) => !withdrawn.has(w))
  }

  /** Runs after a successful commit with what it returned: results take post-increment values from it. */
  onCommit(fn: (committed: Committed) => void): void {
    this.committed.push(fn)
  }

  readonly committed: ((committed: Committed) => void)[] = []

  /**
   * Entities this attempt picked from a pool (a free code): a conflict on one of them means another
   * request took it, so the operation picks again rather than counting it as a clash.
   */
  readonly claims = new Set<string>()

  claim(collection: CollectionName, id: string): void {
    this.claims.add(`${collection}/${id}`)
  }

  delete(collection: CollectionName, stored: Stored<{ id: string }>): void {
    this.writes.push({ op: 'delete', collection, id: stored.value.id, expectedVersion: stored.version })
  }

  /**
   * Activity ids sort like the feed reads: by time, then in the order this engine emitted them (items
   * of one commit share a timestamp), then by a random tail that keeps ids of several engines apart.
   */
  private activityId(): string {
    const time = this.now.getTime().toString(36).padStart(9, '0')
    const seq = this.ctx.sequence.next().toString(36).padStart(7, '0')
    const id = `${ID_PREFIX.activity}${time}${seq}${this.id('').slice(0, 12)}`
    this.made.add(id)
    return id
  }

  /** Records an activity item on the customer's feed (docs/behaviour.md#events). */
  emit(
    type: string,
    customerId: string | null | undefined,
    data: Record<string, unknown> = {},
    extra: Pick<ActivityEvent, 'campaign_id' | 'campaign_type' | 'category'> & { group_id?: string } = {},
  ): void {
    if (!customerId) return
    const { group_id, ...filters } = extra
    this.insert('activities', {
      id: this.activityId(),
      type,
      customer_id: customerId,
      ...filters,
      category: filters.category ?? 'ACTION',
      data: { ...data, event_source: { channel: 'API' } },
      group_id: group_id ?? this.id('v_grp_'),
      created_at: this.nowIso,
      object: 'customer_activity',
    })
  }
}

/**
 * Thrown by an attempt whose reads disagree because a concurrent commit landed between them: `mutate`
 * decides again on fresh reads (counted with failed guards), or answers 409 past their limit.
 */
export class StaleRead extends Error {}

/** How many times an operation decides again after failed guards before it gives up (docs/storage.md#counters). */
const MAX_REDECISIONS = 25

/** A successful commit's result. */
export type Committed = Extract<CommitResult, { ok: true }>

/**
 * Runs a state-changing operation with optimistic concurrency: compute on what was read, commit the
 * changeset once; on a conflict re-read and recompute, a bounded number of times, then fail with 409.
 */
export async function mutate<T>(ctx: Context, attempt: (tx: Tx) => Promise<T>): Promise<T> {
  let lastConflict = ''
  let conflicts = 0
  let guards = 0
  for (;;) {
    const tx = new Tx(ctx, { redeciding: guards > 0 })
    let outcome: CommitResult
    let result: T
    let alternatives: PreparedAlternative[] = []
    try {
      try {
        result = await attempt(tx)
      } catch (error) {
        // What the attempt read moved under it (a card's buckets spent by a concurrent request after
        // its balance was read): decide again on fresh reads, like after a failed guard.
        if (error instanceof StaleRead && !ctx.store.hostTransaction && ++guards <= MAX_REDECISIONS) {
          lastConflict = error.message
          continue
        }
        throw error
      }
      const writes = tx.changeset()
      if (writes.length === 0) return result
      alternatives = (await tx.alternatives?.()) ?? []
      outcome = await ctx.store.commit(
        alternatives.length === 0
          ? { writes }
          : {
              writes,
              alternatives: alternatives.map(({ when, tolerate = [], writes }) => ({ when, tolerate, writes })),
            },
      )
      tx.sawCommit(outcome)
    } finally {
      tx.release()
    }
    if (outcome.ok) {
      // The store answered a failed guard with the alternative: its result, without another round.
      const applied = outcome.alternative
      const answer = applied && (alternatives[applied.index] as PreparedAlternative).result
      if (applied && answer) return answer(applied.failed, outcome) as T
      for (const fn of tx.committed) fn(outcome)
      return result
    }
    const c = outcome.conflict
    // A fresh id already stored: retrying would draw new ids and hide a generator that repeats itself
    // (restarted on the same data), so it is named instead of retried.
    if (c.reason === 'exists' && tx.made.has(c.id)) throw takenId(c.collection, c.id)
    lastConflict = `${c.collection}/${c.id} (${c.reason}${c.key ? ` ${c.key}` : ''})`
    // A failed guard is not a clash to retry blindly: a counter the decision relied on moved, and
    // deciding again on its new value gives the business answer (a budget reached, a balance spent).
    // Inside a host's own transaction the host retries its whole transaction, not the engine.
    if (ctx.store.hostTransaction) {
      conflicts++
      break
    }
    const redecide = c.reason === 'guard' || tx.claims.has(`${c.collection}/${c.id}`)
    if (redecide ? ++guards > MAX_REDECISIONS : ++conflicts > ctx.config.maxRetries) break
  }
  throw EngineError.conflict(
    'concurrent_modification',
    `The operation conflicted with concurrent changes ${conflicts + guards} times; last on ${lastConflict}. Retry the request.`,
  )
}

/**
 * Writes the named lock row (inserting it the first time), so two concurrent transactions that both
 * take it cannot both commit: the second re-reads whatever the first wrote. Take it before the reads
 * it protects.
 */
export async function takeLock(tx: Tx, name: string): Promise<void> {
  const stored = await tx.store.locks.get(name)
  if (stored) tx.update('locks', stored, { ...stored.value, updated_at: tx.nowIso })
  else tx.insert('locks', { id: name, updated_at: tx.nowIso })
}

/** Reads a required entity or throws 404. */
export async function must<C extends CollectionName>(
  ctx: Context,
  collection: C,
  id: string,
  resourceType: string,
  path?: string,
): Promise<StoredRow<Entity<C>>> {
  const stored = await ctx.store[collection].get(id)
  if (!stored) throw EngineError.notFound(resourceType, id, path)
  return stored as StoredRow<Entity<C>>
}

/** The number at a dotted path of a stored value, if there is one. */
export function valueAt(value: unknown, path: string): number | undefined {
  let at = value
  for (const part of path.split('.'))
    at = typeof at === 'object' && at !== null ? (at as Record<string, unknown>)[part] : undefined
  return typeof at === 'number' ? at : undefined
}
