/**
 * The request types of every operation, each derived from the schema that parses it (valibot's
 * `InferInput`: what a caller may pass, before defaults and transforms), so the types and the checks
 * cannot drift apart. Named `<Namespace><Operation>Params` like the official client's.
 */

import type { applicationInput, authenticateInput, revokeRequest, rotateSecretInput, tokenRequest } from './auth'
import type { campaignInput } from './campaign'
import type { categoryInput } from './category'
import type { customerInput } from './customer'
import type { exportInput } from './export'
import type {
  activityQuery,
  earningRulesInput,
  eventInput,
  loyaltyCampaignInput,
  memberInput,
  pageListQuery,
  programRewardAssignmentsInput,
  redeemRewardInput,
  rewardAssignmentInput,
  rewardInput,
  tiersInput,
} from './loyalty'
import type { schemaInput } from './metadata-schema'
import type { orderBody } from './order'
import type { listSkusQuery, productCollectionInput, productInput, skuInput } from './product'
import type { promotionCampaignInput, stackInput, stacksQuery, tierInput } from './promotion'
import type { publicationInput } from './publication'
import type { bestStackRequest, pointsEstimateRequest, qualificationRequest } from './qualifications'
import type { holdersQuery, referralPublishInput } from './referral'
import type { rollbackRequest, stackableRequest } from './stackable'
import type { stackingRulesInput } from './stacking-rules'
import type { fromTemplateInput, templateInput, templatesQuery } from './template'
import type * as v from './valibot'
import type { namedAssignment, relatedAssignment, validationRuleInput } from './validation-rule'
import type { bulkUpdateInput, voucherInput } from './voucher'

/** Optional fields also take `undefined`: the parse boundary reads a key set to `undefined` as absent. */
type Absentable<T> = T extends readonly unknown[]
  ? { [I in keyof T]: Absentable<T[I]> }
  : T extends object
    ? { [K in keyof T]: Absentable<T[K]> | (Record<string, never> extends Pick<T, K> ? undefined : never) }
    : T

type In<S extends v.GenericSchema> = Absentable<v.InferInput<S>>
type PageListQuery = In<ReturnType<typeof pageListQuery>>

export type AuthCreateApplicationParams = In<typeof applicationInput>
export type AuthRotateSecretParams = Omit<In<typeof rotateSecretInput>, 'app_id'>
/** The token endpoint's form fields, parsed or as `URLSearchParams`. */
export type AuthIssueTokenParams = In<typeof tokenRequest> | URLSearchParams
export type AuthRevokeTokenParams = In<typeof revokeRequest> | URLSearchParams
export type AuthAuthenticateParams = In<typeof authenticateInput>

export type CampaignsCreateParams = In<typeof campaignInput>
export type CategoriesCreateParams = In<typeof categoryInput>
export type CustomersCreateParams = In<typeof customerInput>
export type CustomersListActivityParams = In<typeof activityQuery>

export type ValidationsValidateStackableParams = In<typeof stackableRequest>
export type RedemptionsRedeemStackableParams = In<typeof stackableRequest>
export type RedemptionsRollbackParams = In<typeof rollbackRequest>
export type RedemptionsRollbackStackableParams = In<typeof rollbackRequest>

export type PromotionsCreateParams = In<typeof promotionCampaignInput>
export type PromotionsTiersCreateParams = In<typeof tierInput>
export type PromotionsStacksCreateParams = In<typeof stackInput>
export type PromotionsStacksListParams = In<typeof stacksQuery>

export type ValidationRulesCreateParams = In<typeof validationRuleInput>
/** Both body forms: `related_object_type` + `related_object_id`, or the SDK's `{voucher: id}`. */
export type ValidationRulesCreateAssignmentParams = In<typeof relatedAssignment> | In<typeof namedAssignment>
export type StackingRulesCreateParams = In<typeof stackingRulesInput>
export type StackingRulesUpdateParams = In<typeof stackingRulesInput>

export type VouchersCreateParams = In<typeof voucherInput>
export type VouchersBulkUpdateParams = In<typeof bulkUpdateInput>

export type ProductsCreateParams = In<typeof productInput>
export type ProductsCreateSkuParams = In<typeof skuInput>
export type ProductsListSkusParams = In<typeof listSkusQuery>
export type ProductsCreateCollectionParams = In<typeof productCollectionInput>

export type MetadataSchemasCreateParams = In<typeof schemaInput>
export type ExportsCreateCampaignTransactionsExportParams = In<typeof exportInput>
export type PublicationsCreateParams = In<typeof publicationInput>
export type ReferralsPublishParams = In<typeof referralPublishInput>
export type ReferralsListHoldersParams = In<typeof holdersQuery>

export type TemplatesCreateCampaignTemplateParams = In<typeof templateInput>
export type TemplatesListCampaignTemplatesParams = In<typeof templatesQuery>
export type TemplatesCreateCampaignFromTemplateParams = In<typeof fromTemplateInput>

export type LoyaltiesCreateParams = In<typeof loyaltyCampaignInput>
export type LoyaltiesListParams = PageListQuery
export type LoyaltiesCreateMemberParams = In<typeof memberInput>
export type LoyaltiesCreateRewardAssignmentsParams = In<typeof programRewardAssignmentsInput>
/** The earning rules to create, together. */
export type LoyaltiesCreateEarningRuleParams = In<typeof earningRulesInput>
export type LoyaltiesListEarningRulesParams = PageListQuery
export type LoyaltiesCreateTiersParams = In<typeof tiersInput>
export type LoyaltiesListTiersParams = PageListQuery
export type LoyaltiesRedeemRewardParams = In<typeof redeemRewardInput>

export type RewardsCreateParams = In<typeof rewardInput>
export type RewardsCreateAssignmentParams = In<typeof rewardAssignmentInput>

/** A custom event's body; `event` names it unless the name is passed first (`create(name, body)`). */
export type EventsCreateParams = In<typeof eventInput> & { event?: string }

export type OrdersCreateParams = In<typeof orderBody>
export type OrdersUpdateParams = In<typeof orderBody>

export type QualificationsCheckEligibilityParams = In<typeof qualificationRequest>
export type QualificationsBestStackParams = In<typeof bestStackRequest>
export type LoyaltiesQualificationsParams = In<typeof pointsEstimateRequest>
