/** Discount calculation over orders (docs/concepts.md#discounts): pure, synchronous, plain data in and out. */
export { allocateCapped } from './caps'
export { creditTargets, matchedItemsAmount } from './credits'
export { isItemEffect, type ResolvedEffect, resolveEffect } from './default-effect'
export type {
  AppliedAmounts,
  AppliedLine,
  CalculationMode,
  CalculationOptions,
  CatalogPrices,
  CollectionMembers,
  Collections,
  CreditStep,
  DiscountStep,
  NormalizeOptions,
  ProductsApplicationMode,
  SequenceResult,
  Step,
  StepResult,
  UnitRoom,
} from './discount-types'
export { MAX_ORDER_ITEMS, normalizeOrder } from './normalize-order'
export { calculateSequence } from './sequence'
export { applyStep } from './step'
export {
  collectionMemberKey,
  MAX_LISTED_UNITS,
  matches as targetMatches,
  type Pick as TargetPick,
  selectTargets,
  type TargetGroup,
  type TargetingContext,
  type TargetSelection,
} from './target-lines'
export { finalizeOrder } from './totals'
