import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'
import { calls, checkCall, checkFaultyCall, faults, fixture, OPERATIONS, operationPaths } from '../support/fuzz'
import { propertyRuns } from '../support/store'

/** `npm run fuzz:long` runs the same properties far longer, reporting the slowest calls. */
describe('fuzzing every public operation', () => {
  it('covers every operation of createEngine', async () => {
    const { engine } = testEngine()
    expect(Object.keys(OPERATIONS).sort()).toEqual(operationPaths(engine))
  })

  for (const [path, sample] of Object.entries(OPERATIONS)) {
    it(`${path}: malformed input, or a faulty clock, ids or random (naming it), gets an EngineError and changes nothing; what is stored is JSON`, async () => {
      const f = await fixture()
      // The sample itself is a call the operation answers (accepted, or refused for a business reason).
      await checkCall(f, path, sample(f, 0), (error) => {
        expect(error.details).not.toMatch(/^Argument /)
        expect(error.key).not.toBe('invalid_call_options')
      })
      await fc.assert(
        fc.asyncProperty(calls(f, sample, path), async (args) => {
          await checkCall(f, path, args)
        }),
        // On PostgreSQL a share of the runs (test/postgres/engine-setup.ts): each call there is a round trip.
        { numRuns: propertyRuns(30), seed: 42 },
      )
      // The same fixture (a fresh one per property would double the cost on PostgreSQL).
      await fc.assert(
        fc.asyncProperty(faults(), fc.nat(), async (given, n) => {
          await checkFaultyCall(f, path, sample(f, n), given)
        }),
        { numRuns: propertyRuns(10), seed: 42 },
      )
    })
  }
})
