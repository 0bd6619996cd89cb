import { describe, expect, it, vi } from 'vitest'
import { engineContext } from '../../../src/engine'
import { EngineError } from '../../../src/errors'
import { CLAIM_LEASE_MS, continueLater, enqueue, registerAsyncHandler } from '../../../src/operations/kernel/jobs'
import { mutate } from '../../../src/operations/kernel/unit-of-work'
import { testEngine } from '../../support/engine'

/** An engine with a `test.echo` handler (returns its payload) and a `test.fail` one (throws). */
function setup() {
  const t = testEngine()
  const ctx = engineContext(t.engine)
  registerAsyncHandler(ctx, 'test.echo', async (tx, action) => {
    // A handler's writes commit with the action's DONE status.
    tx.emit('test.ran', 'cust_1', { payload: action.payload })
    return { echoed: action.payload }
  })
  registerAsyncHandler(ctx, 'test.fail', async () => {
    throw new EngineError({ code: 404, key: 'not_found', message: 'Resource not found', details: 'gone' })
  })
  const schedule = (type: string, payload: unknown, runAt?: Date) =>
    mutate(ctx, async (tx) => enqueue(tx, type, payload, runAt))
  return { ...t, schedule }
}

describe('async actions', () => {
  it('enqueues an action due now and runs it at the clock now', async () => {
    const { engine, store, schedule } = setup()
    const action = await schedule('test.echo', { n: 1 })
    expect(action).toEqual({
      id: expect.stringMatching(/^aa_[0-9A-Za-z]{24}$/),
      type: 'test.echo',
      status: 'ENQUEUED',
      progress: 0,
      run_at: '2026-01-15T10:00:00.000Z',
      payload: { n: 1 },
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      object: 'async_action',
    })
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
    // The response holds the hosted fields only: no payload or run_at, and a result once it has run.
    expect(await engine.asyncActions.get(action.id)).toEqual({
      id: action.id,
      type: 'test.echo',
      status: 'DONE',
      progress: 100,
      result: { echoed: { n: 1 } },
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: '2026-01-15T10:00:00.000Z',
      object: 'async_action',
    })
    expect((await store.activities.list()).data.map((s) => s.value.type)).toEqual(['test.ran'])
    // Nothing is left to run.
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 0, succeeded: 0, failed: 0 })
  })

  it('waits for run_at by the injected clock', async () => {
    const { engine, clock, schedule } = setup()
    const later = await schedule('test.echo', 'later', new Date('2026-01-15T11:00:00.000Z'))
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 0, succeeded: 0, failed: 0 })
    clock.set('2026-01-15T10:59:59.999Z')
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 0, succeeded: 0, failed: 0 })
    clock.set('2026-01-15T11:00:00.000Z')
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
    expect((await engine.asyncActions.get(later.id)).status).toBe('DONE')
  })

  it('marks a failing action FAILED with its error and goes on with the others', async () => {
    const { engine, store, schedule } = setup()
    const bad = await schedule('test.fail', null)
    const good = await schedule('test.echo', 2)
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 2, succeeded: 1, failed: 1 })
    expect(await engine.asyncActions.get(bad.id)).toMatchObject({
      status: 'FAILED',
      result: { error: { code: 404, key: 'not_found', message: 'Resource not found', details: 'gone' } },
    })
    expect((await engine.asyncActions.get(good.id)).status).toBe('DONE')
    // The failed attempt's writes were discarded: only the good action's activity exists.
    expect((await store.activities.list()).data).toHaveLength(1)
  })

  it('runs an action once when two workers run pending work concurrently: the loser never runs its handler', async () => {
    const { engine, store, schedule } = setup()
    let runs = 0
    registerAsyncHandler(engineContext(engine), 'test.costly', async (tx) => {
      runs++
      tx.emit('test.ran', 'cust_1')
      return null
    })
    await schedule('test.costly', 'once')
    const [a, b] = await Promise.all([engine.asyncActions.runPending(), engine.asyncActions.runPending()])
    expect(a.succeeded + b.succeeded).toBe(1)
    expect((await store.activities.list()).data).toHaveLength(1)
    // The two workers race for the claim (a small conditional write); only the winner does the work.
    expect(runs).toBe(1)
  })

  it('gives 404 for an unknown action and refuses an unregistered type or a second registration', async () => {
    const { engine, schedule } = setup()
    await expect(engine.asyncActions.get('aa_missing')).rejects.toMatchObject({
      code: 404,
      resource_type: 'async_action',
    })
    await expect(schedule('test.unknown', null)).rejects.toThrow('No async handler is registered for test.unknown')
    expect(() => registerAsyncHandler(engineContext(engine), 'test.echo', async () => null)).toThrow(
      'already registered',
    )
  })
})

describe('async actions under contention', () => {
  it('an action whose commit keeps conflicting stays queued for the next run instead of failing', async () => {
    const { engine, store, schedule } = setup()
    const action = await schedule('test.echo', { n: 1 })
    const commit = store.commit.bind(store)
    let losing = true
    // Every commit that would finish the action loses the race while `losing` is set (its claim commits).
    store.commit = async (changeset) =>
      losing &&
      changeset.writes.some((w) => w.op === 'put' && w.collection === 'async_actions' && w.value.status === 'DONE')
        ? { ok: false, conflict: { collection: 'async_actions', id: action.id, reason: 'version' } }
        : commit(changeset)
    expect(await engine.asyncActions.runPending()).toMatchObject({ succeeded: 0, failed: 0 })
    // Given back to the queue, not left claimed.
    expect(await engine.asyncActions.get(action.id)).toMatchObject({ status: 'ENQUEUED' })
    expect((await store.async_actions.get(action.id))?.value).not.toHaveProperty('claimed_until')
    losing = false
    expect(await engine.asyncActions.runPending()).toMatchObject({ succeeded: 1 })
    expect(await engine.asyncActions.get(action.id)).toMatchObject({ status: 'DONE', result: { echoed: { n: 1 } } })
  })
})

describe('claims', () => {
  it('an action whose runner died while holding it runs again once the claim has run out, not before', async () => {
    const { engine, store, clock, schedule } = setup()
    const action = await schedule('test.echo', 'again')
    // What a runner that claimed the action and then died leaves behind.
    const until = new Date(Date.parse('2026-01-15T10:00:00.000Z') + CLAIM_LEASE_MS).toISOString()
    await mutate(engineContext(engine), async (tx) => {
      const stored = await tx.store.async_actions.get(action.id)
      if (stored) tx.update('async_actions', stored, { ...stored.value, status: 'IN_PROGRESS', claimed_until: until })
    })
    // The claim stays inside: the response shows the hosted status only.
    expect(await engine.asyncActions.get(action.id)).not.toHaveProperty('claimed_until')
    expect((await engine.asyncActions.get(action.id)).status).toBe('IN_PROGRESS')
    clock.set(new Date(Date.parse(until) - 1).toISOString())
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 0, succeeded: 0, failed: 0 })
    clock.set(until)
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
    expect(await engine.asyncActions.get(action.id)).toMatchObject({ status: 'DONE', result: { echoed: 'again' } })
    expect((await store.async_actions.get(action.id))?.value).not.toHaveProperty('claimed_until')
  })

  it('a runner whose claim was taken over after its lease does not commit its work', async () => {
    const { engine, store, clock, schedule } = setup()
    let release: () => void = () => {}
    let runs = 0
    registerAsyncHandler(engineContext(engine), 'test.slow', async (tx) => {
      runs++
      tx.emit('test.ran', 'cust_1')
      // The first runner stalls past its lease; the second runs while it waits.
      if (runs === 1) await new Promise<void>((resolve) => (release = resolve))
      return { run: runs }
    })
    const action = await schedule('test.slow', null)
    const first = engine.asyncActions.runPending()
    await vi.waitFor(() => expect(runs).toBe(1))
    clock.set(new Date(Date.parse('2026-01-15T10:00:00.000Z') + CLAIM_LEASE_MS).toISOString())
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 1, succeeded: 1, failed: 0 })
    release()
    expect(await first).toEqual({ ran: 0, succeeded: 0, failed: 0 })
    expect(await engine.asyncActions.get(action.id)).toMatchObject({ status: 'DONE', result: { run: 2 } })
    expect((await store.activities.list()).data).toHaveLength(1)
  })

  it('a run told to stop leaves a long action after the step in hand, free for the next run', async () => {
    const { engine, store, schedule } = setup()
    const stopping = new AbortController()
    const steps: number[] = []
    // Four steps (an export's chunks); the run is told to stop while it works on the second.
    registerAsyncHandler(engineContext(engine), 'test.steps', async (tx, action) => {
      const at = (action.state as number | undefined) ?? 0
      steps.push(at)
      tx.emit('test.step', 'cust_1', { at })
      if (at === 1) stopping.abort()
      return at < 3 ? continueLater(at + 1) : { steps: at + 1 }
    })
    const long = await schedule('test.steps', null, new Date('2026-01-15T09:00:00.000Z'))
    const next = await schedule('test.echo', 'next')
    // Neither ended: the long one is part-way, the other not started.
    expect(await engine.asyncActions.runPending({ signal: stopping.signal })).toEqual({
      ran: 0,
      succeeded: 0,
      failed: 0,
    })
    expect(steps).toEqual([0, 1])
    const left = (await store.async_actions.get(long.id))?.value
    expect(left).toMatchObject({ status: 'IN_PROGRESS', state: 2 })
    // Its claim ended with the step's commit: any runner takes it at once, no lease to wait out.
    expect(left).not.toHaveProperty('claimed_until')
    expect((await store.async_actions.get(next.id))?.value.status).toBe('ENQUEUED')
    expect((await store.activities.list()).data.map((a) => a.value.data.at)).toEqual([0, 1])
    // Already aborted: nothing starts.
    expect(await engine.asyncActions.runPending({ signal: stopping.signal })).toEqual({
      ran: 0,
      succeeded: 0,
      failed: 0,
    })
    expect(steps).toEqual([0, 1])
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 2, succeeded: 2, failed: 0 })
    expect(steps).toEqual([0, 1, 2, 3])
    expect(await engine.asyncActions.get(long.id)).toMatchObject({ status: 'DONE', result: { steps: 4 } })
  })

  it('refuses a signal that is not an AbortSignal, before running anything', async () => {
    const { engine, schedule } = setup()
    const action = await schedule('test.echo', 'kept')
    await expect(engine.asyncActions.runPending({ signal: 'stop' as never })).rejects.toMatchObject({
      code: 400,
      key: 'invalid_call_options',
      path: 'options.signal',
    })
    expect((await engine.asyncActions.get(action.id)).status).toBe('ENQUEUED')
  })

  it('reads a backlog of due actions a page at a time, and runs every one of it once', async () => {
    const { engine, store, schedule } = setup()
    const ids: string[] = []
    // 250 due actions, half of them due at the same instant (a day of pending points after an outage).
    for (let i = 0; i < 250; i++) {
      const runAt = i % 2 === 0 ? new Date('2026-01-15T09:00:00.000Z') : new Date(Date.UTC(2026, 0, 15, 8, 0, i))
      ids.push((await schedule('test.echo', i, runAt)).id)
    }
    const list = vi.spyOn(store.async_actions, 'list')
    expect(await engine.asyncActions.runPending()).toEqual({ ran: 250, succeeded: 250, failed: 0 })
    const pages = list.mock.results.map((r) => (r.value as Promise<{ data: unknown[] }>).then((p) => p.data.length))
    expect(await Promise.all(pages)).toEqual([100, 100, 50])
    const statuses = await Promise.all(ids.map(async (id) => (await engine.asyncActions.get(id)).status))
    expect(new Set(statuses)).toEqual(new Set(['DONE']))
    expect((await store.activities.list()).data).toHaveLength(250)
  })
})
