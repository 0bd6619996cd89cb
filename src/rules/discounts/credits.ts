import type { CalculatedOrder } from '../../model/order'
import { assertMoney } from '../../money'
import { orderRoom } from './caps'
import { orderPlan, type StepPlan } from './plan'
import type { CreditStep } from './types'

/**
 * Gift-card credits and pay-with-points value are order-level discounts (reference §4, §5.5), capped
 * at what is left to pay: the caller asks for an amount, the step reports what was applied.
 */
export function creditPlan(order: CalculatedOrder, step: CreditStep): StepPlan {
  const requested = assertMoney(step.amount, 'credit.amount')
  const room = orderRoom(order)
  return orderPlan(Math.min(requested, room))
}
