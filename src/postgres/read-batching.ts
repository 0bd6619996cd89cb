import { createHash } from 'node:crypto'

/**
 * A statement node-postgres prepares once per connection (a named query), named by a hash of its
 * text. A connection keeps what it prepared for ever, and a host's lists can take many shapes: past
 * `PREPARED` distinct texts a store sends the rest unnamed (parsed at each use).
 */
const PREPARED = 256

/** Reads sent in one statement at most (docs/postgres.md#loads). */
const BATCH = 64

export function namer(): (text: string) => string | undefined {
  const names = new Map<string, string>()
  return (text) => {
    let name = names.get(text)
    if (name === undefined && names.size < PREPARED) {
      name = `pe_${createHash('sha1').update(text).digest('base64url').slice(0, 24)}`
      names.set(text, name)
    }
    return name
  }
}

interface Waiting {
  text: string
  /** The text's number (`numberOf`), once the flush has asked. */
  n: number | undefined
  values: unknown[]
  /** The synchronous run it was issued in (\`read\`). */
  run: number
  resolve: (v: unknown) => void
  reject: (e: unknown) => void
}

/*
 * Reads issued together (one level of an operation's loads: docs/storage.md#load-decide-commit) are
 * sent as one statement: each read is a scalar subquery yielding its rows as JSON, and the reads
 * waiting when the event loop turns become the columns of one SELECT. Fragments come in a fixed order,
 * so a level of the same shape is the same statement, prepared once per connection.
 */
export function readBatcher(
  /** Sends one statement and answers its first row's columns, parsed (`JsonRowQuery`). */
  query: (text: string, params: unknown[]) => Promise<unknown[] | undefined>,
): <T>(text: string, values: unknown[]) => Promise<T> {
  let waiting: Waiting[] = []
  /*
   * Reads are numbered by the synchronous run that issued them (one operation's level: its reads go
   * out from one `Promise.all`), the number moving on once that run's microtasks are done. A flush
   * that finds several runs sends the runs of one shape (the same reads' texts: the same level of
   * the same kind of operation) as one statement, and runs of different shapes as statements of
   * their own, all at once. Runs of different shapes combined would make texts that are the
   * combinations of whatever requests were served together: seldom seen twice, without bound, and
   * past the store's prepared names (`PREPARED`) each sent unnamed, parsed and planned at every
   * execution (docs/postgres.md#loads). Runs of one shape make one text per number of runs, a few per
   * level, prepared once per connection, and one statement for many requests of one kind saves the
   * statements' own costs.
   */
  let run = 0
  let runOpen = false
  const closeRun = () => {
    run++
    runOpen = false
  }
  // A tick queued from a microtask runs once the microtask queue is empty: the run is everything the
  // callback that woke this process (an answer, a request) and the promise continuations it resumed
  // issued, an operation's concurrent loads (a member's programs beside its redemption's level) too.
  const closeAfterMicrotasks = () => process.nextTick(closeRun)

  function read<T>(text: string, values: unknown[]): Promise<T> {
    if (!runOpen) {
      runOpen = true
      queueMicrotask(closeAfterMicrotasks)
    }
    return new Promise<T>((resolve, reject) => {
      waiting.push({ text, n: undefined, values, run, resolve: resolve as (v: unknown) => void, reject })
      if (waiting.length === 1) setImmediate(flush)
    })
  }

  function flush(): Promise<unknown> {
    const all = waiting
    waiting = []
    const first = all[0] as Waiting
    if (first.run === (all.at(-1) as Waiting).run) return sendRun(all)
    // Runs are contiguous (a run ends before the next begins): each ordered as it is sent alone, and
    // joined to the runs of its shape; a run past the bound on numbered texts goes alone.
    const byShape = new Map<string, Waiting[]>()
    const alone: Waiting[][] = []
    let current: Waiting[] = []
    const close = () => {
      const reads = ordered(current)
      const key = keyOf(reads)
      const same = key === undefined ? undefined : byShape.get(key)
      if (key === undefined) alone.push(reads)
      else if (same) for (const r of reads) same.push(r)
      else byShape.set(key, reads)
    }
    for (const r of all) {
      if (current.length > 0 && r.run !== (current[0] as Waiting).run) {
        close()
        current = []
      }
      current.push(r)
    }
    close()
    if (byShape.size === 1 && alone.length === 0) return sendRun([...byShape.values()][0] as Waiting[])
    return Promise.all([...byShape.values(), ...alone].map(sendRun))
  }

  async function sendRun(all: Waiting[]): Promise<void> {
    const reads = ordered(all)
    if (reads.length <= BATCH) return send(reads)
    // A SELECT holds at most 1,664 columns: many requests reading at once are split into statements
    // of at most BATCH reads, sent together.
    const batches: Waiting[][] = []
    for (let i = 0; i < reads.length; i += BATCH) batches.push(reads.slice(i, i + BATCH))
    await Promise.all(batches.map(send))
  }

  /**
   * The reads grouped by text, the groups in the order of their texts' numbers (within one, as
   * issued): a level of the same shape comes out in the same order however its reads were issued,
   * without comparing texts (a list's is built per call, so comparing it would copy it flat first).
   */
  function ordered(all: Waiting[]): Waiting[] {
    let ordered = all
    if (all.length > 1) {
      const groups = new Map<number, Waiting[]>()
      let numbered = true
      for (const r of all) {
        const n = numberOf(r.text)
        r.n = n
        if (n === undefined) {
          numbered = false
          break
        }
        const group = groups.get(n)
        if (group) group.push(r)
        else groups.set(n, [r])
      }
      if (!numbered) ordered = bySortedText(all)
      else if (groups.size > 1) ordered = [...groups.keys()].sort((a, b) => a - b).flatMap((n) => groups.get(n) ?? [])
    }
    return ordered
  }

  /*
   * A level's statement is made once per shape: each distinct read text gets a number, and the
   * statement is kept under its reads' numbers, so a level seen before is neither rebuilt (its
   * parameters renumbered) nor hashed again to find its prepared name. Bounded like `PREPARED`.
   */
  const textNumbers = new Map<string, number>()
  const statements = new Map<string, string>()

  function numberOf(text: string): number | undefined {
    let n = textNumbers.get(text)
    if (n === undefined && textNumbers.size < PREPARED * 4) {
      n = textNumbers.size
      textNumbers.set(text, n)
    }
    return n
  }

  /** Past the bound on numbered texts: grouped by text, the groups sorted by text. */
  function bySortedText(all: readonly Waiting[]): Waiting[] {
    const groups = new Map<string, Waiting[]>()
    for (const r of all) {
      const group = groups.get(r.text)
      if (group) group.push(r)
      else groups.set(r.text, [r])
    }
    return [...groups.keys()].sort().flatMap((text) => groups.get(text) ?? [])
  }

  /** A batch's statement key: its reads' text numbers in order; none past the bound on numbered texts. */
  function keyOf(batch: readonly Waiting[]): string | undefined {
    let key = ''
    for (const r of batch) {
      const n = r.n ?? numberOf(r.text)
      if (n === undefined) return undefined
      key = `${key}${n},`
    }
    return key
  }

  function statement(batch: readonly Waiting[]): { text: string; params: unknown[] } {
    const params: unknown[] = []
    for (const r of batch) for (const v of r.values) params.push(v)
    const key = keyOf(batch)
    const known = key === undefined ? undefined : statements.get(key)
    if (known !== undefined) return { text: known, params }
    let offset = 0
    const columns = batch.map((r, i) => {
      const at = offset
      offset += r.values.length
      return `${r.text.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + at}`)} AS r${i}`
    })
    const text = `SELECT ${columns.join(', ')}`
    if (key !== undefined && statements.size < PREPARED) statements.set(key, text)
    return { text, params }
  }

  async function send(batch: Waiting[]): Promise<void> {
    const { text, params } = statement(batch)
    try {
      const row = await query(text, params)
      for (let i = 0; i < batch.length; i++) (batch[i] as Waiting).resolve(row?.[i])
    } catch (error) {
      for (const r of batch) r.reject(error)
    }
  }

  return read
}
