import { describe, expect, it } from 'vitest'
import { createAdmission } from '../../packages/server/src/admission'

/** A piece of work that runs until its test says so. */
function held(log: string[], name: string) {
  let finish: (value: string) => void = () => {}
  let fail: (error: Error) => void = () => {}
  const done = new Promise<string>((resolve, reject) => {
    finish = resolve
    fail = reject
  })
  return {
    work: () => {
      log.push(`start ${name}`)
      return done
    },
    finish: () => finish(name),
    fail: () => fail(new Error(name)),
  }
}

const settle = () => new Promise((resolve) => setImmediate(resolve))

describe('admission (packages/server/src/admission.ts)', () => {
  it('works on `limit` requests at once; the rest start in arrival order as places free; past the queue, refused', async () => {
    const log: string[] = []
    const waits: number[] = []
    const admission = createAdmission({ limit: 2, queue: 2, waited: (s) => waits.push(s) })
    const [a, b, c, d, e] = [held(log, 'a'), held(log, 'b'), held(log, 'c'), held(log, 'd'), held(log, 'e')] as const
    const ran = [a, b, c, d].map((h) => admission.run(h.work))
    const failed = ran[0]?.catch((error: Error) => error.message)
    // The fifth finds two working and two waiting: refused, and its work never runs.
    expect(admission.run(e.work)).toBeUndefined()
    expect(log).toEqual(['start a', 'start b'])
    expect([admission.inFlight, admission.queued]).toEqual([2, 2])
    b.finish()
    await settle()
    expect(log).toEqual(['start a', 'start b', 'start c'])
    a.fail()
    await settle()
    // A failed request frees its place as a finished one does.
    expect(log).toEqual(['start a', 'start b', 'start c', 'start d'])
    expect([admission.inFlight, admission.queued]).toEqual([2, 0])
    c.finish()
    d.finish()
    expect(await failed).toBe('a')
    expect(await Promise.all(ran.slice(1))).toEqual(['b', 'c', 'd'])
    expect([admission.inFlight, admission.queued]).toEqual([0, 0])
    // Each admitted request's wait is reported once: the first two none.
    expect(waits).toHaveLength(4)
    expect(waits.slice(0, 2)).toEqual([0, 0])
    expect(waits.every((w) => w >= 0)).toBe(true)
  })

  it('a place freed goes to the oldest waiting request, never to one arriving after', async () => {
    const log: string[] = []
    const admission = createAdmission({ limit: 1, queue: 10 })
    const [a, b, c] = [held(log, 'a'), held(log, 'b'), held(log, 'c')] as const
    admission.run(a.work)
    admission.run(b.work)
    a.finish()
    // c arrives after a has finished but before b has been woken.
    admission.run(c.work)
    await settle()
    expect(log).toEqual(['start a', 'start b'])
    b.finish()
    await settle()
    expect(log).toEqual(['start a', 'start b', 'start c'])
  })

  it('limit 0: every request starts at once and none is refused, still counted', async () => {
    const log: string[] = []
    const admission = createAdmission({ limit: 0, queue: 0 })
    const list = Array.from({ length: 50 }, (_, i) => held(log, String(i)))
    for (const h of list) expect(admission.run(h.work)).toBeDefined()
    expect(log).toHaveLength(50)
    expect([admission.inFlight, admission.queued]).toEqual([50, 0])
    for (const h of list) h.finish()
    await settle()
    expect(admission.inFlight).toBe(0)
  })
})
