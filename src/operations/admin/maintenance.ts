import type { Context } from '../kernel/unit-of-work'
import { backfills } from './backfills'
import { housekeeping } from './housekeeping'

export type { BackfillSummary } from './backfills'
export type { PurgeSummary, TrimSummary } from './housekeeping'

/**
 * Housekeeping a host runs on a timer (the reference server does; so may a separate worker, on the
 * same store), and the backfills it runs once after an upgrade: see docs/http.md#housekeeping.
 * The backfills are in backfills.ts, the timed deletions (expired records, the change feed's
 * retention) in housekeeping.ts.
 */
export function maintenance(ctx: Context) {
  return { ...backfills(ctx), ...housekeeping(ctx) }
}
