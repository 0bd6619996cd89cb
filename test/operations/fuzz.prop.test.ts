import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { testEngine } from '../support/engine'
import { calls, checkCall, fixture, OPERATIONS, operationPaths } from '../support/fuzz'
import { propertyRuns } from '../support/store'

/** `npm run fuzz:long` runs the same properties far longer, reporting the slowest calls. */
describe('fuzzing every public operation', () => {
  it('covers every operation of createEngine', async () => {
    const { engine } = testEngine()
    expect(Object.keys(OPERATIONS).sort()).toEqual(operationPaths(engine))
  })

  for (const [path, sample] of Object.entries(OPERATIONS)) {
    it(`${path}: malformed input gets an EngineError and changes nothing; what is stored is JSON`, async () => {
      const f = await fixture()
      // The sample itself is a call the operation answers (accepted, or refused for a business reason).
      await checkCall(f, path, sample(f, 0))
      await fc.assert(
        fc.asyncProperty(calls(f, sample), async (args) => {
          await checkCall(f, path, args)
        }),
        // On PostgreSQL a share of the runs (test/postgres/engine-setup.ts): each call there is a round trip.
        { numRuns: propertyRuns(30), seed: 42 },
      )
    })
  }
})
