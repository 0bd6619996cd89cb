/**
 * The request types of every operation, named so the API report (etc/promo-engine.api.md) shows
 * every field: a request field added, renamed or retyped changes the report. Each is exactly what its
 * schema accepts (valibot's \`InferInput\`: what a caller may pass, before defaults and transforms, an
 * optional field also taking \`undefined\`), which test/schema/request-types.test.ts checks at compile
 * time, so the types and the checks cannot drift apart. Named \`<Namespace><Operation>Params\` like the
 * official client's (docs/design.md#public-surface). They live in one file per domain of
 * `src/operations/` (`<domain>-requests.ts`), the shapes several requests share in `request-shapes.ts`.
 */
export type * from './admin-requests'
export type * from './campaign-requests'
export type * from './checkout-requests'
export type * from './loyalty-requests'
export type * from './referral-requests'
export type * from './request-shapes'
export type * from './shop-requests'
export type * from './voucher-requests'
