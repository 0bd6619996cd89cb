import type { Redemption, RedemptionRollback } from '../../model/redemption'

/**
 * A redemption as operations return it: the stored one without the engine's bookkeeping.
 * `points_taken` (the ledger buckets the points came from) stays in the store for a rollback to
 * return them exactly, and `referee_credit` (what a referral credited the referee) for a rollback to
 * take back, and `unit_counts` (the units counted in unit budget rows) for a rollback to give back;
 * none is a field of the service's redemption object.
 */
export function withoutBookkeeping<R extends Redemption | RedemptionRollback>(r: R): R {
  if (!('points_taken' in r) && !('referee_credit' in r) && !('unit_counts' in r)) return r
  const { points_taken: _taken, referee_credit: _credit, unit_counts: _units, ...rest } = r as Redemption
  return rest as R
}
