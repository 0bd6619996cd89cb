import type { CalculatedOrder } from '../../model/order'
import type { CalculationOptions, SequenceResult, Step, StepResult } from './discount-types'
import { applyStep } from './step'
import { finalizeOrder } from './totals'

/**
 * Several steps in order, each on the running order left by the one before (step 3 of
 * docs/concepts.md#validation-and-redemption): one cumulative snapshot per step, and the final order with the
 * request's totals as `applied_*`.
 */
export function calculateSequence(
  order: CalculatedOrder,
  steps: readonly Step[],
  options: CalculationOptions = {},
): SequenceResult {
  const results: StepResult[] = new Array(steps.length)
  let current = order
  for (let i = 0; i < steps.length; i++) {
    const r = applyStep(current, steps[i] as Step, options)
    results[i] = r
    current = r.order
  }
  return { steps: results, order: finalizeOrder(order, current) }
}
