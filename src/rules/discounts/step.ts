import { EngineError } from '../../errors'
import type { CalculatedOrder } from '../../model/order'
import { amountPlan } from './amount'
import { creditPlan, creditTargets, itemCreditPlan } from './credits'
import { isItemEffect, type ResolvedEffect, resolveEffect } from './default-effect'
import type { AppliedAmounts, CalculationOptions, DiscountStep, Step, StepResult } from './discount-types'
import { fixedPlan } from './fixed'
import { percentPlan } from './percent'
import type { StepContext, StepPlan } from './step-plan'
import { emptyList, hasTargetEntries, selectTargets, type TargetSelection } from './target-lines'
import { applyPlan } from './totals'
import { unitPlan } from './unit'

/**
 * One step on a running order: a discount or a credit, decided on `order` as it stands and written
 * onto a new snapshot. `order` is not changed; the returned order shares the lines the step left alone.
 */
export function applyStep(order: CalculatedOrder, step: Step, options: CalculationOptions = {}): StepResult {
  switch (step.kind) {
    case 'credit': {
      if (step.effect === 'APPLY_TO_ITEMS') {
        const targets = creditTargets(order, step.applicable_to, options.collections)
        return result(order, itemCreditPlan(order, step, targets), targets, step.amount)
      }
      return result(order, creditPlan(order, step), null, step.amount)
    }
    case 'discount':
      return applyDiscount(order, step, options)
    default: {
      const _never: never = step
      return _never
    }
  }
}

function applyDiscount(order: CalculatedOrder, step: DiscountStep, options: CalculationOptions): StepResult {
  const multiplier = step.bundleMultiplier ?? 1
  if (!Number.isSafeInteger(multiplier) || multiplier < 0) {
    throw EngineError.invalid('bundleMultiplier', `must be a non-negative integer, got ${multiplier}`)
  }
  const resolved = resolveEffect(step.discount, step.applicable_to)
  const once = options.productsApplicationMode === 'ONCE'
  const targets =
    isItemEffect(resolved) || hasTargetEntries(step.applicable_to)
      ? selectTargets(order.items, step.applicable_to, {
          collections: options.collections,
          once,
          // Bundles scale unit limits for AMOUNT and FIXED, not for PERCENT (docs/concepts.md#bundles).
          unitScale: resolved.type === 'PERCENT' ? 1 : multiplier,
          unitRoom: step.unitRoom,
        })
      : NO_TARGETS
  const ctx: StepContext = {
    order,
    mode: step.calculationMode ?? options.calculationMode ?? 'DISCOUNTED_AMOUNT',
    rounding: options.rounding ?? 'half-up',
    multiplier,
    targets,
    prices: options.prices,
    once,
    formulas: step.formulas,
    formulaUses: undefined,
  }
  const r = result(order, planFor(resolved, ctx), targets, undefined)
  if (ctx.formulaUses !== undefined) r.applied.formulas = ctx.formulaUses
  return r
}

const NO_TARGETS: TargetSelection = Object.freeze({
  picks: [],
  groups: [],
  applicable_to: emptyList(),
  inapplicable_to: emptyList(),
}) as TargetSelection

function planFor(resolved: ResolvedEffect, ctx: StepContext): StepPlan {
  switch (resolved.type) {
    case 'AMOUNT':
      assertMoneyField(resolved.discount.amount_off, 'discount.amount_off')
      return amountPlan(resolved.discount, resolved.effect, ctx)
    case 'PERCENT':
      return percentPlan(resolved.discount, resolved.effect, ctx)
    case 'FIXED':
      assertMoneyField(resolved.discount.fixed_amount, 'discount.fixed_amount')
      return fixedPlan(resolved.discount, resolved.effect, ctx)
    case 'UNIT':
      return unitPlan(resolved.discount, ctx)
    default: {
      const _never: never = resolved
      return _never
    }
  }
}

function assertMoneyField(value: number, path: string): void {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw EngineError.invalid(path, `must be a non-negative safe integer amount in minor units, got ${String(value)}`)
  }
}

function result(
  order: CalculatedOrder,
  plan: StepPlan,
  targets: TargetSelection | null,
  requested: number | undefined,
): StepResult {
  const next = applyPlan(order, plan)
  const applied: AppliedAmounts = {
    discount_amount: next.applied_discount_amount,
    items_discount_amount: next.items_applied_discount_amount,
    total_discount_amount: next.total_applied_discount_amount,
    added_amount: next.amount - order.amount,
    lines: plan.lines,
  }
  if (requested !== undefined) {
    applied.requested_amount = requested
    applied.credited_amount = applied.total_discount_amount
  }
  const addedUnits = plan.lines.some((line) => line.added_quantity > 0)
  return {
    order: next,
    applied,
    // Fresh envelopes each time: results are plain data the caller may keep and change.
    applicable_to: targets === null || targets === NO_TARGETS ? emptyList() : targets.applicable_to,
    inapplicable_to: targets === null || targets === NO_TARGETS ? emptyList() : targets.inapplicable_to,
    effect: applied.total_discount_amount > 0 || addedUnits ? 'applied' : 'no_effect',
  }
}
