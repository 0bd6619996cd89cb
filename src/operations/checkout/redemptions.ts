import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import type { IdempotencyRecord } from '../../model/idempotency'
import type { CalculatedOrder } from '../../model/order'
import type { Redemption, RedemptionRollback } from '../../model/redemption'
import {
  decideRedeemables,
  type ExpandOption,
  type PipelineResult,
  type RedeemableSubject,
  redeemableResult,
} from '../../rules/redeemables'
import { nonEmptyString } from '../../schema/common'
import { parse } from '../../schema/parse'
import type {
  RedemptionsRedeemStackableParams,
  RedemptionsRollbackParams,
  RedemptionsRollbackStackableParams,
} from '../../schema/requests'
import { parseStackableRequest, type RollbackRequest, rollbackRequest } from '../../schema/stackable'
import type { Entity } from '../../storage/ports'
import { offerAlternatives } from '../kernel/guard-alternatives'
import { withIdempotency } from '../kernel/idempotency-keys'
import { type Context, mutate, type Tx } from '../kernel/unit-of-work'
import { loyaltyPrograms, prefetchMember } from '../loyalty/cascade'
import { afterPointsChanged, earnOnOrderPaid } from '../loyalty/earn-points'
import { noteTierDecision } from '../loyalty/member-tiers'
import { undoReward } from '../loyalty/reward-redemption'
import { recordReferral, takeBackRefereeCredit } from '../referrals/conversions'
import { resolveCustomer } from '../shop/customer-records'
import { withoutBookkeeping } from '../vouchers/public-redemption'
import { loadRequest } from './load-request'
import { redecision } from './redecide-on-guard'
import { RedemptionWriter, type StackedRedemption, type WrittenRedemption } from './redeem-stackable'

export type { StackedRedemption } from './redeem-stackable'
export type { StackedRollback } from './rollback-stackable'

import { effectiveStackingRules } from '../campaigns/effective-stacking-rules'
import { withOrder, withOrders } from '../shop/order-records'
import {
  ROLLBACK_REFUSALS,
  type RollbackReaction,
  recordFailedRollback,
  rollback,
  rollbackSingle,
  type StackedRollback,
} from './rollback-stackable'

/** What the redemption writer returns: the result before its redeemable results are added. */
type Written = Omit<StackedRedemption, 'inapplicable_redeemables' | 'skipped_redeemables'>

export function redemptions(ctx: Context) {
  return {
    /**
     * `POST /v1/redemptions`: the validation's decision, committed. A parent redemption with one
     * child per redeemed redeemable; the order stored (status `PAID` unless the request says
     * otherwise); uses, credits, points and tier summaries counted; the session released; all in one
     * commit, retried on a conflict. A request that redeems nothing records a failed redemption.
     */
    async redeemStackable(body: RedemptionsRedeemStackableParams, options?: CallOptions): Promise<StackedRedemption> {
      const request = parseStackableRequest(body)
      const call = {
        operation: 'redemptions.redeemStackable',
        input: request,
        reference: (r: StackedRedemption) => ({
          ids: [r.parent_redemption.id, ...r.redemptions.map((c) => c.id)],
          status: r.parent_redemption.status,
          extra: {
            inapplicable_redeemables: r.inapplicable_redeemables,
            skipped_redeemables: r.skipped_redeemables,
            // A failed redemption stores no order; the response echoes the request's.
            ...(r.parent_redemption.order ? {} : { order: r.order }),
          },
        }),
        replay: async (record: IdempotencyRecord): Promise<StackedRedemption> => {
          const [parent, ...children] = await withOrders(
            ctx.store,
            await readAll(ctx, 'redemptions', record.result_ids),
          )
          const extra = record.result_extra as Pick<
            StackedRedemption,
            'inapplicable_redeemables' | 'skipped_redeemables'
          > & { order?: CalculatedOrder }
          const p = parent as Redemption
          return {
            redemptions: children.map(withoutBookkeeping),
            parent_redemption: withoutBookkeeping(p),
            order: (p.order ?? extra.order) as CalculatedOrder,
            inapplicable_redeemables: extra.inapplicable_redeemables,
            skipped_redeemables: extra.skipped_redeemables,
          }
        },
      }
      return withIdempotency(ctx, options, call, async (tx) => {
        const paid = (request.order?.status ?? 'PAID') === 'PAID'
        // A payment earns points: the loyalty programs depend on nothing the request names, and are
        // read with its first level (docs/postgres.md#loads); the member's reads once the customer is known.
        if (paid && request.customer) void loyaltyPrograms(tx)
        const loaded = await loadRequest(ctx, request, tx.now, {
          sessionKey: request.session?.key,
          redeems: true,
          onCustomer: paid ? (id) => prefetchMember(tx, id, { spendFrom: pointsFrom(request) }) : undefined,
        })
        const decision = decideRedeemables(loaded.input)
        const customer =
          loaded.customer ??
          (await resolveCustomer(tx, request.customer, { create: true, known: { schema: loaded.customerSchema } }))
        const expand = new Set<ExpandOption>(request.options?.expand ?? [])
        const bySubject = new Map(loaded.input.subjects.map((s) => [s.index, s]))
        const shape = (outcome: Written, d: PipelineResult): StackedRedemption => {
          const results = d.outcomes.map((o) =>
            redeemableResult(o, bySubject.get(o.index) as RedeemableSubject, loaded.rules, expand),
          )
          return {
            ...outcome,
            redemptions: outcome.redemptions.map(withoutBookkeeping),
            inapplicable_redeemables: results.filter((r) => r.status === 'INAPPLICABLE'),
            skipped_redeemables: results.filter((r) => r.status === 'SKIPPED'),
          }
        }
        const write = new RedemptionWriter(tx, request, loaded, customer?.value)
        if (decision.redeem.length === 0) return shape(write.failure(decision.outcomes), decision)
        // A guard of this redemption that fails (a quantity, a balance, a budget) is answered in the same
        // commit by what deciding again would record (docs/storage.md#alternatives): the failure, or for
        // a unit budget with fewer units left, the success with fewer units discounted.
        const decided = redecision(loaded, tx)
        offerAlternatives(tx, {
          ...decided,
          fails: (d) => d.redeem.length === 0,
          write: (alt, d) =>
            d.redeem.length === 0
              ? new RedemptionWriter(alt, request, loaded, customer?.value).failure(d.outcomes)
              : succeed(new RedemptionWriter(alt, request, loaded, customer?.value), alt, d),
          result: shape,
          perValue: decided.readsUnits,
        })
        return shape(await succeed(write, tx, decision), decision)
      })
    },

    /**
     * `POST /v1/redemptions/{parentRedemptionId}/rollbacks`: gives back every child's use, credits and
     * points; with `WITH_ORDER` (the project's `redeemables_rollback_order_mode`) the order loses the
     * redemption's discounts and becomes `CANCELED`, with `WITHOUT_ORDER` it stays as it is.
     */
    async rollbackStackable(
      parentRedemptionId: string,
      body: RedemptionsRollbackStackableParams = {},
      options?: CallOptions,
    ): Promise<StackedRollback> {
      const id = parse(nonEmptyString, parentRedemptionId, 'parentRedemptionId')
      const input = parse(rollbackRequest, body)
      const rules = await effectiveStackingRules(ctx)
      const call = {
        operation: 'redemptions.rollbackStackable',
        input: { parentRedemptionId: id, ...input },
        reference: (r: StackedRollback) => ({
          ids: [r.parent_rollback.id, ...r.rollbacks.map((c) => c.id)],
          status: r.parent_rollback.status,
        }),
        replay: async (record: IdempotencyRecord): Promise<StackedRollback> => {
          const [parent, ...children] = await withOrders(
            ctx.store,
            await readAll(ctx, 'redemption_rollbacks', record.result_ids),
          )
          const p = parent as RedemptionRollback
          return { rollbacks: children, parent_rollback: p, order: p.order ?? null }
        },
      }
      return recordingRefusals(ctx, id, input, () =>
        withIdempotency(ctx, options, call, async (tx) => {
          const done = await rollback(tx, id, input, rules.redeemables_rollback_order_mode)
          await reactToRollback(tx, done.reactions)
          return done.result
        }),
      )
    },

    /**
     * `POST /v1/redemptions/{redemptionId}/rollback`: rolls back a single (non-stacked) redemption,
     * such as a reward redemption: the points, the use, the reward's stock and what it issued come
     * back (see `rollbackSingle`, `undoReward`). Stacked parents and children are refused.
     */
    async rollback(
      redemptionId: string,
      body: RedemptionsRollbackParams = {},
      options?: CallOptions,
    ): Promise<RedemptionRollback> {
      const id = parse(nonEmptyString, redemptionId, 'redemptionId')
      const input = parse(rollbackRequest, body)
      const rules = await effectiveStackingRules(ctx)
      const call = {
        operation: 'redemptions.rollback',
        input: { redemptionId: id, ...input },
        reference: (r: RedemptionRollback) => ({ ids: [r.id], status: r.status }),
        replay: async (record: IdempotencyRecord) =>
          (
            await withOrders(ctx.store, await readAll(ctx, 'redemption_rollbacks', record.result_ids))
          )[0] as RedemptionRollback,
      }
      return recordingRefusals(ctx, id, input, () =>
        withIdempotency(ctx, options, call, async (tx) => {
          const done = await rollbackSingle(tx, id, input, rules.redeemables_rollback_order_mode)
          await reactToRollback(tx, done.reactions)
          return done.result
        }),
      )
    },

    async get(redemptionId: string, _options?: CallOptions): Promise<Redemption | RedemptionRollback> {
      const id = parse(nonEmptyString, redemptionId, 'redemptionId')
      const redemption = await ctx.store.redemptions.get(id)
      if (redemption) return withoutBookkeeping(await withOrder(ctx.store, redemption.value))
      const rollback = await ctx.store.redemption_rollbacks.get(id)
      if (!rollback) throw EngineError.notFound('redemption', id, 'redemptionId')
      return (await withOrders(ctx.store, [rollback.value]))[0] as RedemptionRollback
    },
  }
}

/** Writes a redemption that redeems something, with what it sets off in other domains. */
async function succeed(write: RedemptionWriter, tx: Tx, decision: PipelineResult) {
  const redeemed = decision.outcomes.filter((o) => decision.redeem.includes(o.index))
  const written = await write.success(redeemed, decision.order)
  await reactToRedemption(tx, written)
  return write.record(written)
}

/**
 * The steps a redemption sets off in other domains, run after its own writes and in its commit: a
 * redeemed referral code converts the referral (the referee's credit shows on its child redemption),
 * and an order that became `PAID` earns its customer points (the loyalty cascade: tiers, rewards).
 */
async function reactToRedemption(tx: Tx, written: WrittenRedemption): Promise<void> {
  // The redemption may have decided on the member's tier (its validation rules, a reward's cost).
  noteTierDecision(tx)
  for (const { at, voucher, customerId } of written.reactions.referrals) {
    const child = written.redemptions[at] as Redemption
    const referral = await recordReferral(tx, { voucher, customerId, redemptionId: child.id })
    if (referral.referee_credit) written.redemptions[at] = { ...child, referee_credit: referral.referee_credit }
  }
  if (written.reactions.paid) await earnOnOrderPaid(tx, written.reactions.paid)
}

/** The steps a rollback sets off in other domains, in its commit, in the order it lists them. */
async function reactToRollback(tx: Tx, reactions: readonly RollbackReaction[]): Promise<void> {
  for (const reaction of reactions) {
    if (reaction.step === 'points_changed') await afterPointsChanged(tx, reaction.campaign, reaction.card)
    else if (reaction.step === 'referee_credit') await takeBackRefereeCredit(tx, reaction.redemption)
    else await undoReward(tx, reaction.redemption)
  }
}

/** The entities an idempotency record names, in its order (a replay rebuilds the response from them). */
async function readAll<C extends 'redemptions' | 'redemption_rollbacks'>(
  ctx: Context,
  collection: C,
  ids: readonly string[],
): Promise<Entity<C>[]> {
  const found = new Map((await ctx.store[collection].getMany(ids)).map((s) => [s.value.id, s.value]))
  return ids.map((id) => {
    const value = found.get(id)
    if (!value) throw EngineError.notFound(collection === 'redemptions' ? 'redemption' : 'redemption_rollback', id)
    return value as Entity<C>
  })
}

/** Runs a rollback; a refusal is recorded as a failed rollback in its own commit, then still thrown. */
async function recordingRefusals<T>(
  ctx: Context,
  redemptionId: string,
  input: RollbackRequest,
  run: () => Promise<T>,
): Promise<T> {
  try {
    return await run()
  } catch (error) {
    if (error instanceof EngineError && ROLLBACK_REFUSALS.has(error.key)) {
      await mutate(ctx, (tx) => recordFailedRollback(tx, redemptionId, input, error))
    }
    throw error
  }
}

/** The codes a request pays points from (a card with a reward): their spending order is read early. */
function pointsFrom(request: { redeemables: readonly { object: string; id?: string; reward?: unknown }[] }): string[] {
  return request.redeemables.flatMap((r) => (r.object === 'voucher' && r.reward && r.id ? [r.id] : []))
}
