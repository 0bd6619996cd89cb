/** Qualifications: which redeemables a customer and a cart qualify for, and the best stack of them. */

export {
  type CandidateFacts,
  matchesQualificationFilters,
  stackFacts,
  tierFacts,
  voucherFacts,
} from './candidate-filters'
export { type BestStackDecision, chooseBestStack, type LeftOut } from './choose-best-stack'
export { qualificationEntry } from './entry'
export { applies, decideAlone, discountValue, type Ranked, type RankedPage, rankAndPage } from './qualify'
export { couldDiscountCart, inScenario, requiresItems, targetsCart, walletOnly, withoutCart } from './scenario'
export {
  ANY_TARGET,
  type CartCatalogue,
  type CartLine,
  cartIds,
  cartTargets,
  offerTargets,
  withoutTargets,
} from './targets'
