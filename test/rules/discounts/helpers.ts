import type { Discount } from '../../../src/model/discount'
import type { ApplicableTo, ApplicableToEntry } from '../../../src/model/validation-rule'
import type { CreditStep, DiscountStep } from '../../../src/rules/discounts'

export function discount(d: Discount, applicable_to?: ApplicableTo, bundleMultiplier?: number): DiscountStep {
  const step: DiscountStep = { kind: 'discount', discount: d }
  if (applicable_to !== undefined) step.applicable_to = applicable_to
  if (bundleMultiplier !== undefined) step.bundleMultiplier = bundleMultiplier
  return step
}

export function credit(amount: number, source: CreditStep['source'] = 'gift_card'): CreditStep {
  return { kind: 'credit', amount, source }
}

export function product(id: string, extra: Partial<ApplicableToEntry> = {}): ApplicableToEntry {
  return { object: 'product', id, ...extra }
}
