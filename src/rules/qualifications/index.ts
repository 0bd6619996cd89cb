/** Qualifications: which redeemables a customer and a cart qualify for, and the best stack of them. */
export { type BestStackDecision, chooseBestStack, type LeftOut } from './best'
export { qualificationEntry } from './entry'
export {
  type CandidateFacts,
  matchesQualificationFilters,
  stackFacts,
  tierFacts,
  voucherFacts,
} from './filters'
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
