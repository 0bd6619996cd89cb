import type { AsyncHandler } from '../../../src/operations/kernel/jobs'

/** An async action type whose run adds one to a counter row: run twice, the count shows it. */
export const COUNT_ACTION = 'test.count'

export const countHandler: AsyncHandler['run'] = async (tx, action) => {
  tx.writes.push({
    op: 'increment',
    collection: 'counters',
    id: 'async-runs',
    by: { runs: 1 },
    create: { kind: 'test' },
  })
  return { counted: action.id }
}
