import type { Redemption, RedemptionRollback } from '../model/redemption'

/**
 * A redemption as operations return it: the stored one without the engine's bookkeeping.
 * `points_taken` (the ledger buckets the points came from) stays in the store for a rollback to
 * return them exactly; it is not a field of the service's redemption object.
 */
export function withoutBookkeeping<R extends Redemption | RedemptionRollback>(r: R): R {
  if (!('points_taken' in r)) return r
  const { points_taken: _taken, ...rest } = r
  return rest as R
}
