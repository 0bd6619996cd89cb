import type { Alternative, Conflict, Guard, GuardRef, Write } from '../../storage/ports'
import type { Committed, Context, PreparedAlternative, Tx } from './unit-of-work'

/*
 * Alternatives (docs/storage.md#alternatives): an operation whose commit bumps a counter with a guard
 * sends, with its writes, what it would commit had it decided on a value that fails the guard, so the
 * store answers a refused request in the same commit instead of a second round. The alternative is
 * not a second failure path written by hand: it is the operation's own pure decision, taken again on
 * the snapshot the attempt loaded with the guarded field pinned at a failing value, and written by the
 * operation's own writer: a refusal, or the same decision counted on other values. It is prepared
 * only where a guard may fail (`Tx.mayFail`), and sent only where it is exact: a refusal applies only
 * for values of the field at which deciding again writes exactly the same, and only when every other
 * failed guard is one that does not change that answer; the same decision carries its own guards; an
 * answer that differs with each value (a unit budget with fewer units left) applies at its value alone.
 * Guarded fields hold integers (counts, minor units, points).
 */

/** A stored field set to a value for deciding again. */
export interface Pin extends GuardRef {
  value: number
}

/** How an operation decides again on pinned values and writes the answer (`offerAlternatives`). */
export interface Redecision<D, W> {
  /** Whether the decision reads the stored field at all (one it does not read cannot change it). */
  reads(field: GuardRef): boolean
  /** The value of the field the decision read (undefined when unknown). */
  read(field: GuardRef): number | undefined
  /** The decision again, on the snapshot the attempt loaded, with these fields pinned. */
  decide(pins: readonly Pin[]): D
  /** Whether a decision is a plain failure: only then is it an alternative. */
  fails(decision: D): boolean
  /**
   * Writes the decision into a fresh attempt (a failure; with `perValue`, a success too); returns what
   * the result is built from.
   */
  write(tx: Tx, decision: D): W | Promise<W>
  /** The operation's result, from what was written and the decision on the values the commit found. */
  result(written: W, decision: D): unknown
  /**
   * The writes of an attempt (this one unless `on` is given: an answer's fork), for its decision taken
   * on pinned values (counted on other counter values): when pinning changes the writes but not the
   * decision.
   */
  rewrite?(pins: readonly Pin[], on?: Tx): Write[]
  /**
   * Whether a failure of this field's guard that changes the decision into another success (a unit
   * budget with fewer units left) is answered value by value: one alternative for each stored value
   * the guard can find, each written by `write` (which then writes successes too).
   */
  perValue?(field: GuardRef): boolean
}

/**
 * How many stored values of one field are answered value by value (`Redecision.perValue`), from the
 * bound down: a request taking more units than this on one row, finding more than this many left but
 * not enough, decides again.
 */
const MAX_VALUE_ANSWERS = 8

/**
 * Lets `mutate` prepare alternatives for the guards this attempt's writes will hold. Call it where
 * the operation's own answer starts: the writes made so far (a customer created on the way) belong to
 * the alternatives too. Nothing is computed unless a guard may fail (`Tx.mayFail`).
 */
export function offerAlternatives<D, W>(tx: Tx, source: Redecision<D, W>): void {
  const prefix = [...tx.changeset()]
  tx.alternatives = () => prepare(tx, source, prefix)
}

/** A field of the attempt's writes under a guard. */
interface GuardedField extends GuardRef {
  /** What the changeset adds to the field, up to and including its guarded write. */
  by: number
  /** The guard's bounds on the field alone, as the decision read them (`resolve`). */
  bound: Guard
  /** What the guard adds to the field before comparing (its `plus` fields, as read). */
  extra: number
  /** Stored values at which the guard fails: the first one past each of its bounds. */
  failing: number[]
  /**
   * When the write moves the field toward a bound: the stored values between the first one that
   * fails and the bound itself (where concurrent guarded commits can leave it), nearest first.
   */
  toward?: { near: number; far: number }
}

async function prepare<D, W>(
  tx: Tx,
  source: Redecision<D, W>,
  prefix: readonly Write[],
): Promise<PreparedAlternative[]> {
  // Most attempts stop here: none of their guards can fail given what is in flight.
  const bounds = (g: GuardRef & { bound: Guard }) => resolve(source, g, g.bound).bound
  if (!tx.guards().some((g) => source.reads(g) && tx.mayFail(g, bounds(g), source.read(g)))) return []
  const fields = guardedFields(tx.changeset(), (at, bound) => resolve(source, at, bound))
  const candidates = fields.filter((g) => g.toward && source.reads(g) && tx.mayFail(g, g.bound, source.read(g)))
  if (candidates.length === 0) return []
  let decided: string | undefined
  const own = () => {
    decided ??= JSON.stringify(source.decide([]))
    return decided
  }
  const out: PreparedAlternative[] = []
  // Guards whose failure leaves the decision as it is but changes what it writes.
  const recount: GuardedField[] = []
  const valued: GuardedField[] = []
  for (const g of candidates) {
    const toward = g.toward as NonNullable<GuardedField['toward']>
    const at = pin(g, toward.near)
    const decision = source.decide([at])
    if (!source.fails(decision)) {
      if (JSON.stringify(decision) === own()) recount.push(g)
      else if (source.perValue?.(g)) valued.push(g)
      continue
    }
    const answer = await Answer.make(tx, source, prefix, decision)
    // The answer holds over the range when deciding at its far end writes the same.
    const { near, far } = toward
    const whole = far === near || (await answer.same(source.decide([pin(g, far)])))
    const lo = whole ? Math.min(near, far) : near
    const hi = whole ? Math.max(near, far) : near
    // Another guard failing too leaves the answer as it is if deciding with both pinned writes the same.
    const tolerate: GuardedField[] = []
    for (const h of fields) {
      if (h === g) continue
      if (!source.reads(h)) tolerate.push(h)
      else if (await everyAsync(h.failing, (v) => answer.same(source.decide([at, pin(h, v)])))) tolerate.push(h)
    }
    out.push({
      when: { ...ref(g), min: lo + g.by + g.extra, max: hi + g.by + g.extra },
      tolerate: tolerate.map(ref),
      writes: answer.writes,
      result: (failed, committed) => answer.resultAt(failed, fields, at, committed),
    })
  }
  for (const g of valued) out.push(...(await valueByValue(tx, source, prefix, g, fields, recount)))
  const rewritten = recount.length > 0 ? rewrite(tx, source, recount, own) : undefined
  if (rewritten) out.push(rewritten)
  return withTakes(tx.changeset(), out)
}

async function everyAsync<T>(values: readonly T[], test: (value: T) => Promise<boolean>): Promise<boolean> {
  for (const v of values) if (!(await test(v))) return false
  return true
}

/**
 * A guard whose failure changes the decision into another success (a unit budget with fewer units
 * left than the attempt takes): one answer per stored value the guard can find, from the bound down
 * (at most `MAX_VALUE_ANSWERS`), each the decision taken again with the field pinned at that value and
 * applied only when the store finds exactly it (`when.min` = `when.max`, the value after the
 * increment). Each answer's writes carry the guards of its own decision, so the store checks in the
 * alternative's round whatever it assumed. A `recount` guard failing too (a customer's concurrent
 * redemptions each taken for their first in the campaign) gets the same answer counted on its failing
 * value, listed after the first, so it applies when that guard failed; any other guard failing too is
 * not tolerated: the request decides again.
 */
async function valueByValue<D, W>(
  tx: Tx,
  source: Redecision<D, W>,
  prefix: readonly Write[],
  g: GuardedField,
  fields: readonly GuardedField[],
  recount: readonly GuardedField[],
): Promise<PreparedAlternative[]> {
  const { near, far } = g.toward as NonNullable<GuardedField['toward']>
  const recountPins = recount.map((h) => pin(h, (h.toward as NonNullable<GuardedField['toward']>).near))
  const out: PreparedAlternative[] = []
  // Past a max the field rises toward it: the values nearest the bound are the budget all but spent.
  const step = far >= near ? -1 : 1
  for (let v = far, n = 0; n < MAX_VALUE_ANSWERS && (step < 0 ? v >= near : v <= near); v += step, n++) {
    const at = pin(g, v)
    const decision = source.decide([at])
    const answer = await Answer.make(tx, source, prefix, decision)
    const value = v + g.by + g.extra
    const when = { ...ref(g), min: value, max: value }
    const result = (failed: readonly Conflict[], committed: Committed) => answer.resultAt(failed, fields, at, committed)
    out.push({ when, writes: answer.writes, result })
    if (recount.length === 0 || !source.rewrite) continue
    if (JSON.stringify(source.decide([at, ...recountPins])) !== JSON.stringify(decision)) continue
    const writes = source.rewrite(recountPins, answer.fork)
    if (JSON.stringify(writes) !== JSON.stringify(answer.writes))
      out.push({ when, tolerate: recount.map(ref), writes, result })
  }
  return out
}

/**
 * A `take` of a card's points is short exactly when the card's balance is (docs/storage.md#taking-points):
 * an answer to the card's failed balance guard tolerates the take's shortfall too.
 */
export function withTakes<A extends Alternative>(writes: readonly Write[], alternatives: A[]): A[] {
  for (const w of writes) {
    if (w.op !== 'take') continue
    for (const a of alternatives) {
      if (a.when.collection !== 'vouchers' || a.when.id !== w.id || a.when.path !== 'loyalty_card.balance') continue
      a.tolerate = [...(a.tolerate ?? []), { collection: w.collection, id: w.id, path: 'remaining' }]
    }
  }
  return alternatives
}

/**
 * The attempt's own decision written for the values at which the `recount` guards fail, all at once
 * (they fail together: the concurrent commit that moved one moved the others). Its writes carry the
 * guards of that decision, so the store checks them in the alternative's round: it holds for any
 * failing value, and fails like any changeset if it does not fit.
 */
function rewrite<D, W>(
  tx: Tx,
  source: Redecision<D, W>,
  recount: readonly GuardedField[],
  own: () => string,
): PreparedAlternative | undefined {
  if (!source.rewrite) return undefined
  const pins = recount.map((g) => pin(g, (g.toward as NonNullable<GuardedField['toward']>).near))
  if (JSON.stringify(source.decide(pins)) !== own()) return undefined
  const writes = source.rewrite(pins)
  if (JSON.stringify(writes) === JSON.stringify(tx.changeset())) return undefined
  const [g, ...others] = recount as [GuardedField, ...GuardedField[]]
  const side =
    g.bound.max !== undefined && g.by > 0
      ? { min: g.bound.max + g.extra + 1 }
      : { max: (g.bound.min ?? 0) + g.extra - 1 }
  return { when: { ...ref(g), ...side }, tolerate: others.map(ref), writes }
}

/** One prepared answer: its writes (with the ids it drew), and how to compare another decision with it. */
class Answer<D, W> {
  /** The result at the pinned value: made now when a finisher records it, else when it is asked for. */
  private result: { value: unknown } | undefined
  /** JSON of the writes and of the decision, made when a comparison first needs them. */
  private json: string | undefined
  private decisionJson: string | undefined

  private constructor(
    private readonly tx: Tx,
    private readonly source: Redecision<D, W>,
    private readonly prefix: readonly Write[],
    private readonly decision: D,
    private readonly tape: IdTape,
    readonly writes: Write[],
    private readonly written: W,
    /** What the written answer builds its result from once committed (a code's uses after the commit). */
    private readonly committed: readonly ((committed: Committed) => void)[],
    /** The fork the answer was written in (its counted redemptions, for `Redecision.rewrite`). */
    readonly fork: Tx,
  ) {}

  static async make<D, W>(tx: Tx, source: Redecision<D, W>, prefix: readonly Write[], decision: D) {
    const tape = new IdTape(tx.ctx)
    const first = await write(tx, source, prefix, decision, tape.recording())
    const answer = new Answer(
      tx,
      source,
      prefix,
      decision,
      tape,
      first.writes,
      first.written,
      first.committed,
      first.fork,
    )
    answer.result = first.result
    return answer
  }

  /** Whether `decision` is a failure that writes exactly these writes (drawing the same ids). */
  async same(decision: D): Promise<boolean> {
    if (!this.source.fails(decision)) return false
    this.decisionJson ??= JSON.stringify(this.decision)
    if (JSON.stringify(decision) === this.decisionJson) return true
    this.json ??= JSON.stringify(this.writes)
    const again = await write(this.tx, this.source, this.prefix, decision, this.tape.replaying())
    return JSON.stringify(again.writes) === this.json
  }

  /** The result for the values the failed guards found: decided again on them unless they are the pinned ones. */
  resultAt(failed: readonly Conflict[], fields: readonly GuardedField[], at: Pin, committed?: Committed): unknown {
    if (committed !== undefined && this.committed.length > 0) {
      for (const fn of this.committed) fn(committed)
      this.result = undefined
    }
    const pins = failed.flatMap((c) => {
      const f = fields.find((x) => x.collection === c.collection && x.id === c.id && x.path === c.guard?.path)
      return f && c.guard && this.source.reads(f) ? [pin(f, c.guard.value - f.by - f.extra)] : []
    })
    const only = pins[0]
    if (pins.length === 1 && only && only.value === at.value && sameRef(only, at)) {
      this.result ??= { value: this.source.result(this.written, this.decision) }
      return this.result.value
    }
    return this.source.result(this.written, this.source.decide(pins))
  }
}

/** Writes a decision into a fresh attempt starting with `prefix`, with the attempt's finishers. */
async function write<D, W>(
  tx: Tx,
  source: Redecision<D, W>,
  prefix: readonly Write[],
  decision: D,
  ctx: Context,
): Promise<{
  written: W
  result?: { value: unknown }
  writes: Write[]
  committed: readonly ((committed: Committed) => void)[]
  fork: Tx
}> {
  const alt = tx.fork(prefix, ctx)
  try {
    const written = await source.write(alt, decision)
    const done = { written, committed: alt.committed, fork: alt }
    if (tx.finishers.length === 0) return { ...done, writes: alt.changeset() }
    const result = source.result(written, decision)
    for (const finish of tx.finishers) finish(alt, result)
    return { ...done, result: { value: result }, writes: alt.changeset() }
  } finally {
    alt.release()
  }
}

/** Ids and sequence numbers drawn by a first write, handed out again in the same order by a replay. */
class IdTape {
  private readonly ids: string[] = []
  private readonly seqs: number[] = []

  constructor(private readonly ctx: Context) {}

  recording(): Context {
    const { ctx, ids, seqs } = this
    return {
      ...ctx,
      ids: (prefix) => {
        const id = ctx.ids(prefix)
        ids.push(id)
        return id
      },
      sequence: {
        next: () => {
          const n = ctx.sequence.next()
          seqs.push(n)
          return n
        },
      },
    }
  }

  replaying(): Context {
    const { ctx, ids, seqs } = this
    let i = 0
    let j = 0
    return {
      ...ctx,
      ids: (prefix) => ids[i++] ?? ctx.ids(prefix),
      sequence: { next: () => seqs[j++] ?? ctx.sequence.next() },
    }
  }
}

/**
 * The guarded fields of a changeset. A field guarded by two writes, or of an entity also put or
 * deleted, is left out: pinning one stored value would not say what each of them finds.
 */
function guardedFields(
  writes: readonly Write[],
  resolved: (at: GuardRef, bound: Guard) => { bound: Guard; extra: number },
): GuardedField[] {
  const entityOf = (w: Write) => `${w.collection}/${w.op === 'put' ? (w.value as { id: string }).id : w.id}`
  const guarded = new Set<string>()
  for (const w of writes) if (w.op === 'increment' && w.guard) guarded.add(entityOf(w))
  if (guarded.size === 0) return []
  const rewritten = new Set<string>()
  const sums = new Map<string, number>()
  const fields = new Map<string, GuardedField | null>()
  for (const w of writes) {
    const entity = entityOf(w)
    if (!guarded.has(entity)) continue
    if (w.op !== 'increment') {
      rewritten.add(entity)
      continue
    }
    for (const [path, n] of Object.entries(w.by))
      sums.set(`${entity}:${path}`, (sums.get(`${entity}:${path}`) ?? 0) + n)
    for (const [path, bound] of Object.entries(w.guard ?? {})) {
      const key = `${entity}:${path}`
      fields.set(
        key,
        fields.has(key)
          ? null
          : field({ collection: w.collection, id: w.id, path }, sums.get(key) ?? 0, resolved, bound),
      )
    }
  }
  return [...fields.values()].filter((f): f is GuardedField => f !== null && !rewritten.has(`${f.collection}/${f.id}`))
}

/**
 * A guard as bounds on its field alone, at the values the decision read: `maxOf` the stored bound it
 * read, `plus` fields taken off both bounds (`extra`). The store compares with what it finds at commit;
 * the alternative's range is stated on the value it compares (the field plus `extra`).
 */
function resolve<D, W>(source: Redecision<D, W>, at: GuardRef, guard: Guard): { bound: Guard; extra: number } {
  let extra = 0
  for (const path of guard.plus ?? []) extra += source.read({ ...at, path }) ?? 0
  let max = guard.max
  if (guard.maxOf !== undefined) {
    const stored = source.read({ ...at, path: guard.maxOf })
    if (stored !== undefined) max = max === undefined ? stored : Math.min(max, stored)
  }
  const bound: Guard = {}
  if (guard.min !== undefined) bound.min = guard.min - extra
  if (max !== undefined) bound.max = max - extra
  return { bound, extra }
}

function field(
  at: GuardRef,
  by: number,
  resolved: (at: GuardRef, bound: Guard) => { bound: Guard; extra: number },
  guard: Guard,
): GuardedField {
  const { bound, extra } = resolved(at, guard)
  const out: GuardedField = { ...at, by, bound, extra, failing: [] }
  if (bound.max !== undefined) {
    const first = Math.floor(bound.max - by) + 1
    out.failing.push(first)
    if (by > 0 && first <= bound.max) out.toward = { near: first, far: bound.max }
  }
  if (bound.min !== undefined) {
    const first = Math.ceil(bound.min - by) - 1
    out.failing.push(first)
    if (by < 0 && first >= bound.min) out.toward = { near: first, far: bound.min }
  }
  return out
}

function pin(f: GuardRef, value: number): Pin {
  return { collection: f.collection, id: f.id, path: f.path, value }
}

function ref(f: GuardRef): GuardRef {
  return { collection: f.collection, id: f.id, path: f.path }
}

function sameRef(a: GuardRef, b: GuardRef): boolean {
  return a.collection === b.collection && a.id === b.id && a.path === b.path
}

/** `value` with the number at a dotted path replaced (objects along the path are copied, never changed). */
export function withValueAt<T>(value: T, path: string, x: number): T {
  const dot = path.indexOf('.')
  const head = dot === -1 ? path : path.slice(0, dot)
  const base = (typeof value === 'object' && value !== null ? value : {}) as Record<string, unknown>
  return { ...base, [head]: dot === -1 ? x : withValueAt(base[head], path.slice(dot + 1), x) } as T
}
