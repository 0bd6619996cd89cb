/*
 * The request types of src/schema/requests.ts are written out as named interfaces, so the API
 * report shows every field; this file proves at compile time (`npm run typecheck`) that each is
 * exactly what its schema accepts, so a schema change without the matching type change, or the
 * reverse, fails the build.
 */
import type * as v from 'valibot'
import { expectTypeOf, it } from 'vitest'
import type { backfillInput } from '../../src/operations/admin/backfills'
import type { objectsExportInput } from '../../src/operations/admin/exports'
import type { purgeInput, trimInput } from '../../src/operations/admin/housekeeping'
import type {
  applicationInput,
  authenticateInput,
  revokeRequest,
  rotateSecretInput,
  tokenRequest,
} from '../../src/schema/auth'
import type { campaignInput } from '../../src/schema/campaign'
import type { categoryInput } from '../../src/schema/category'
import type { customerInput } from '../../src/schema/customer'
import type { exportInput } from '../../src/schema/export'
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
} from '../../src/schema/loyalty'
import type { schemaInput } from '../../src/schema/metadata-schema'
import type { orderBody } from '../../src/schema/order'
import type { listSkusQuery, productCollectionInput, productInput, skuInput } from '../../src/schema/product'
import type { promotionCampaignInput, stackInput, stacksQuery, tierInput } from '../../src/schema/promotion'
import type { publicationInput } from '../../src/schema/publication'
import type { bestStackRequest, pointsEstimateRequest, qualificationRequest } from '../../src/schema/qualification'
import type { holdersQuery, referralPublishInput } from '../../src/schema/referral'
import type {
  AuthAuthenticateParams,
  AuthCreateApplicationParams,
  AuthIssueTokenParams,
  AuthRevokeTokenParams,
  AuthRotateSecretParams,
  CampaignsCreateParams,
  CategoriesCreateParams,
  CustomersCreateParams,
  CustomersListActivityParams,
  EventsCreateParams,
  ExportsCreateCampaignTransactionsExportParams,
  ExportsCreateParams,
  LoyaltiesCreateEarningRuleParams,
  LoyaltiesCreateMemberParams,
  LoyaltiesCreateParams,
  LoyaltiesCreateRewardAssignmentsParams,
  LoyaltiesCreateTiersParams,
  LoyaltiesListEarningRulesParams,
  LoyaltiesListParams,
  LoyaltiesListTiersParams,
  LoyaltiesQualificationsParams,
  LoyaltiesRedeemRewardParams,
  MaintenanceBackfillParams,
  MaintenancePurgeExpiredParams,
  MaintenanceTrimChangeFeedParams,
  MetadataSchemasCreateParams,
  OrdersCreateParams,
  OrdersUpdateParams,
  ProductsCreateCollectionParams,
  ProductsCreateParams,
  ProductsCreateSkuParams,
  ProductsListSkusParams,
  PromotionsCreateParams,
  PromotionsStacksCreateParams,
  PromotionsStacksListParams,
  PromotionsTiersCreateParams,
  PublicationsCreateParams,
  QualificationsBestStackParams,
  QualificationsCheckEligibilityParams,
  RedemptionsRedeemStackableParams,
  RedemptionsRollbackParams,
  RedemptionsRollbackStackableParams,
  ReferralsListHoldersParams,
  ReferralsPublishParams,
  RewardsCreateAssignmentParams,
  RewardsCreateParams,
  StackingRulesCreateParams,
  StackingRulesUpdateParams,
  TemplatesCreateCampaignFromTemplateParams,
  TemplatesCreateCampaignTemplateParams,
  TemplatesListCampaignTemplatesParams,
  ValidationRulesCreateAssignmentParams,
  ValidationRulesCreateParams,
  ValidationsValidateStackableParams,
  VouchersBulkUpdateParams,
  VouchersCreateParams,
} from '../../src/schema/requests'
import type { rollbackRequest, stackableRequest } from '../../src/schema/stackable'
import type { stackingRulesInput } from '../../src/schema/stacking'
import type { fromTemplateInput, templateInput, templatesQuery } from '../../src/schema/template'
import type { namedAssignment, relatedAssignment, validationRuleInput } from '../../src/schema/validation-rule'
import type { bulkUpdateInput, voucherInput } from '../../src/schema/voucher'

/** Optional fields also take `undefined`: the parse boundary reads a key set to `undefined` as absent. */
type Absentable<T> = T extends readonly unknown[]
  ? { [I in keyof T]: Absentable<T[I]> }
  : T extends object
    ? { [K in keyof T]: Absentable<T[K]> | (Record<string, never> extends Pick<T, K> ? undefined : never) }
    : T

/** What a caller may pass to a schema (before defaults and transforms). */
type In<S extends v.GenericSchema> = Absentable<v.InferInput<S>>
type PageListQuery = In<ReturnType<typeof pageListQuery>>

it('types every request exactly as its schema accepts it', () => {
  expectTypeOf<AuthCreateApplicationParams>().toEqualTypeOf<In<typeof applicationInput>>()
  expectTypeOf<AuthRotateSecretParams>().toEqualTypeOf<Omit<In<typeof rotateSecretInput>, 'app_id'>>()
  expectTypeOf<AuthIssueTokenParams>().toEqualTypeOf<In<typeof tokenRequest> | URLSearchParams>()
  expectTypeOf<AuthRevokeTokenParams>().toEqualTypeOf<In<typeof revokeRequest> | URLSearchParams>()
  expectTypeOf<AuthAuthenticateParams>().toEqualTypeOf<In<typeof authenticateInput>>()
  expectTypeOf<CampaignsCreateParams>().toEqualTypeOf<In<typeof campaignInput>>()
  expectTypeOf<CategoriesCreateParams>().toEqualTypeOf<In<typeof categoryInput>>()
  expectTypeOf<CustomersCreateParams>().toEqualTypeOf<In<typeof customerInput>>()
  expectTypeOf<CustomersListActivityParams>().toEqualTypeOf<In<typeof activityQuery>>()
  expectTypeOf<ValidationsValidateStackableParams>().toEqualTypeOf<In<typeof stackableRequest>>()
  expectTypeOf<RedemptionsRedeemStackableParams>().toEqualTypeOf<In<typeof stackableRequest>>()
  expectTypeOf<RedemptionsRollbackParams>().toEqualTypeOf<In<typeof rollbackRequest>>()
  expectTypeOf<RedemptionsRollbackStackableParams>().toEqualTypeOf<In<typeof rollbackRequest>>()
  expectTypeOf<PromotionsCreateParams>().toEqualTypeOf<In<typeof promotionCampaignInput>>()
  expectTypeOf<PromotionsTiersCreateParams>().toEqualTypeOf<In<typeof tierInput>>()
  expectTypeOf<PromotionsStacksCreateParams>().toEqualTypeOf<In<typeof stackInput>>()
  expectTypeOf<PromotionsStacksListParams>().toEqualTypeOf<In<typeof stacksQuery>>()
  expectTypeOf<ValidationRulesCreateParams>().toEqualTypeOf<In<typeof validationRuleInput>>()
  expectTypeOf<ValidationRulesCreateAssignmentParams>().toEqualTypeOf<
    In<typeof relatedAssignment> | In<typeof namedAssignment>
  >()
  expectTypeOf<StackingRulesCreateParams>().toEqualTypeOf<In<typeof stackingRulesInput>>()
  expectTypeOf<StackingRulesUpdateParams>().toEqualTypeOf<In<typeof stackingRulesInput>>()
  expectTypeOf<VouchersCreateParams>().toEqualTypeOf<In<typeof voucherInput>>()
  expectTypeOf<VouchersBulkUpdateParams>().toEqualTypeOf<In<typeof bulkUpdateInput>>()
  expectTypeOf<ProductsCreateParams>().toEqualTypeOf<In<typeof productInput>>()
  expectTypeOf<ProductsCreateSkuParams>().toEqualTypeOf<In<typeof skuInput>>()
  expectTypeOf<ProductsListSkusParams>().toEqualTypeOf<In<typeof listSkusQuery>>()
  expectTypeOf<ProductsCreateCollectionParams>().toEqualTypeOf<In<typeof productCollectionInput>>()
  expectTypeOf<MetadataSchemasCreateParams>().toEqualTypeOf<In<typeof schemaInput>>()
  expectTypeOf<ExportsCreateCampaignTransactionsExportParams>().toEqualTypeOf<In<typeof exportInput>>()
  expectTypeOf<PublicationsCreateParams>().toEqualTypeOf<In<typeof publicationInput>>()
  expectTypeOf<ReferralsPublishParams>().toEqualTypeOf<In<typeof referralPublishInput>>()
  expectTypeOf<ReferralsListHoldersParams>().toEqualTypeOf<In<typeof holdersQuery>>()
  expectTypeOf<TemplatesCreateCampaignTemplateParams>().toEqualTypeOf<In<typeof templateInput>>()
  expectTypeOf<TemplatesListCampaignTemplatesParams>().toEqualTypeOf<In<typeof templatesQuery>>()
  expectTypeOf<TemplatesCreateCampaignFromTemplateParams>().toEqualTypeOf<In<typeof fromTemplateInput>>()
  expectTypeOf<LoyaltiesCreateParams>().toEqualTypeOf<In<typeof loyaltyCampaignInput>>()
  expectTypeOf<LoyaltiesListParams>().toEqualTypeOf<PageListQuery>()
  expectTypeOf<LoyaltiesCreateMemberParams>().toEqualTypeOf<In<typeof memberInput>>()
  expectTypeOf<LoyaltiesCreateRewardAssignmentsParams>().toEqualTypeOf<In<typeof programRewardAssignmentsInput>>()
  expectTypeOf<LoyaltiesCreateEarningRuleParams>().toEqualTypeOf<In<typeof earningRulesInput>>()
  expectTypeOf<LoyaltiesListEarningRulesParams>().toEqualTypeOf<PageListQuery>()
  expectTypeOf<LoyaltiesCreateTiersParams>().toEqualTypeOf<In<typeof tiersInput>>()
  expectTypeOf<LoyaltiesListTiersParams>().toEqualTypeOf<PageListQuery>()
  expectTypeOf<LoyaltiesRedeemRewardParams>().toEqualTypeOf<In<typeof redeemRewardInput>>()
  expectTypeOf<RewardsCreateParams>().toEqualTypeOf<In<typeof rewardInput>>()
  expectTypeOf<RewardsCreateAssignmentParams>().toEqualTypeOf<In<typeof rewardAssignmentInput>>()
  expectTypeOf<EventsCreateParams>().toEqualTypeOf<In<typeof eventInput> & { event?: string }>()
  expectTypeOf<OrdersCreateParams>().toEqualTypeOf<In<typeof orderBody>>()
  expectTypeOf<OrdersUpdateParams>().toEqualTypeOf<In<typeof orderBody>>()
  expectTypeOf<QualificationsCheckEligibilityParams>().toEqualTypeOf<In<typeof qualificationRequest>>()
  expectTypeOf<QualificationsBestStackParams>().toEqualTypeOf<In<typeof bestStackRequest>>()
  expectTypeOf<LoyaltiesQualificationsParams>().toEqualTypeOf<In<typeof pointsEstimateRequest>>()
  expectTypeOf<ExportsCreateParams>().toEqualTypeOf<In<typeof objectsExportInput>>()
  expectTypeOf<MaintenancePurgeExpiredParams>().toEqualTypeOf<In<typeof purgeInput>>()
  expectTypeOf<MaintenanceTrimChangeFeedParams>().toEqualTypeOf<In<typeof trimInput>>()
  expectTypeOf<MaintenanceBackfillParams>().toEqualTypeOf<In<typeof backfillInput>>()
})
