import * as v from 'valibot'
import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { SimpleCustomer } from '../model/common'
import type { Customer } from '../model/customer'
import type { CalculatedOrder, Order, OrderStatus } from '../model/order'
import type { PromotionTier } from '../model/promotion'
import type { Redemption, RedemptionRollback } from '../model/redemption'
import type { Voucher } from '../model/voucher'
import type { Stored } from '../ports'
import { addDuration } from '../rules/duration'
import type { TakenPoints } from '../rules/ledger'
import {
  decideRedeemables,
  type ExpandOption,
  type RedeemableResult,
  type RedeemableSubject,
  redeemableResult,
  revertOrder,
  type SubjectOutcome,
} from '../rules/redeemables'
import { metadata, nonEmptyString, opt } from '../schema/common'
import { customerInput } from '../schema/customer'
import { parse } from '../schema/parse'
import { parseStackableRequest, type StackableRequest } from '../schema/stackable'
import { type Context, mutate, type Tx } from './context'
import { resolveCustomer } from './customers'
import { earnOnOrderPaid } from './loyalty-earning'
import { loadCard, refundCard, spendCard, updateCardVoucher } from './loyalty-ledger'
import { recordReferral } from './referrals'
import { type LoadedRequest, loadRequest } from './stackable/load'
import { releaseSession } from './stackable/session'
import { trackingId } from './stackable/tracking'
import { effectiveStackingRules } from './stacking-rules'

export interface StackedRedemption {
  redemptions: Redemption[]
  parent_redemption: Redemption
  order: CalculatedOrder
  inapplicable_redeemables: RedeemableResult[]
  skipped_redeemables: RedeemableResult[]
}

export interface StackedRollback {
  rollbacks: RedemptionRollback[]
  parent_rollback: RedemptionRollback
  order: CalculatedOrder | null
}

const rollbackBody = v.object({
  reason: opt(v.string()),
  tracking_id: opt(v.string()),
  customer: opt(customerInput),
  order: opt(v.object({ id: opt(v.string()), source_id: opt(v.nullable(v.string())) })),
  metadata: opt(metadata),
})

/** Rollbacks are accepted within three months of the redemption (reference §7.2). */
const ROLLBACK_WINDOW = 'P3M'

export function redemptions(ctx: Context) {
  return {
    /**
     * `POST /v1/redemptions`: the validation's decision, committed. A parent redemption with one
     * child per redeemed redeemable; the order stored (status `PAID` unless the request says
     * otherwise); uses, credits, points and tier summaries counted; the session released; all in one
     * commit, retried on a conflict. A request that redeems nothing records a failed redemption.
     */
    async redeemStackable(body: unknown): Promise<StackedRedemption> {
      const request = parseStackableRequest(body)
      return mutate(ctx, async (tx) => {
        const loaded = await loadRequest(ctx, request, tx.now, { sessionKey: request.session?.key })
        const decision = decideRedeemables(loaded.input)
        const customer = loaded.customer ?? (await resolveCustomer(tx, request.customer, { create: true }))
        const expand = new Set<ExpandOption>(request.options?.expand ?? [])
        const bySubject = new Map(loaded.input.subjects.map((s) => [s.index, s]))
        const results = decision.outcomes.map((o) =>
          redeemableResult(o, bySubject.get(o.index) as RedeemableSubject, loaded.rules, expand),
        )
        const write = new RedemptionWriter(tx, request, loaded, customer?.value)
        const outcome =
          decision.redeem.length === 0
            ? write.failure(decision.outcomes)
            : await write.success(
                decision.outcomes.filter((o) => decision.redeem.includes(o.index)),
                decision.order,
              )
        return {
          ...outcome,
          inapplicable_redeemables: results.filter((r) => r.status === 'INAPPLICABLE'),
          skipped_redeemables: results.filter((r) => r.status === 'SKIPPED'),
        }
      })
    },

    /**
     * `POST /v1/redemptions/{parentRedemptionId}/rollbacks`: gives back every child's use, credits and
     * points; with `WITH_ORDER` (the project's `redeemables_rollback_order_mode`) the order loses the
     * redemption's discounts and becomes `CANCELED`, with `WITHOUT_ORDER` it stays as it is.
     */
    async rollbackStackable(parentRedemptionId: string, body: unknown = {}): Promise<StackedRollback> {
      const id = parse(nonEmptyString, parentRedemptionId, 'parentRedemptionId')
      const input = parse(rollbackBody, body)
      const rules = await effectiveStackingRules(ctx)
      return mutate(ctx, async (tx) => rollback(tx, id, input, rules.redeemables_rollback_order_mode))
    },

    async get(redemptionId: string): Promise<Redemption | RedemptionRollback> {
      const id = parse(nonEmptyString, redemptionId, 'redemptionId')
      const found = (await ctx.store.redemptions.get(id)) ?? (await ctx.store.redemption_rollbacks.get(id))
      if (!found) throw EngineError.notFound('redemption', id)
      return found.value
    },
  }
}

/** Builds the writes of one redemption request. */
class RedemptionWriter {
  private readonly tracking: string | null
  private readonly simpleCustomer: SimpleCustomer | null

  constructor(
    private readonly tx: Tx,
    private readonly request: StackableRequest,
    private readonly loaded: LoadedRequest,
    private readonly customer: Customer | undefined,
  ) {
    this.tracking = trackingId(customer, request)
    this.simpleCustomer = customer
      ? {
          id: customer.id,
          source_id: customer.source_id,
          name: customer.name ?? null,
          email: customer.email ?? null,
          metadata: customer.metadata,
          object: 'customer',
        }
      : null
  }

  private base(id: string, parent: string | null): Redemption {
    return {
      id,
      object: 'redemption',
      date: this.tx.nowIso,
      customer_id: this.customer?.id ?? null,
      tracking_id: this.tracking,
      metadata: this.request.metadata ?? {},
      redemption: parent,
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      channel: { channel_id: this.request.channel ?? null, channel_type: 'API' },
      customer: this.simpleCustomer,
      related_object_type: 'redemption',
      related_object_id: id,
    }
  }

  private subject(index: number): RedeemableSubject {
    return this.loaded.input.subjects.find((s) => s.index === index) as RedeemableSubject
  }

  /** Nothing could be redeemed: the failure is recorded, one failed child per inapplicable redeemable. */
  failure(
    outcomes: readonly SubjectOutcome[],
  ): Omit<StackedRedemption, 'inapplicable_redeemables' | 'skipped_redeemables'> {
    const first = outcomes.find((o) => o.status === 'INAPPLICABLE') ?? outcomes.find((o) => o.status === 'SKIPPED')
    const code =
      first?.status === 'INAPPLICABLE'
        ? first.error.key
        : first?.status === 'SKIPPED'
          ? first.details.key
          : 'no_applicable_redeemables'
    const message =
      first?.status === 'INAPPLICABLE'
        ? first.error.message
        : first?.status === 'SKIPPED'
          ? first.details.message
          : 'Nothing to redeem'
    const parentId = this.tx.id(ID_PREFIX.redemption_failed)
    const children: Redemption[] = []
    for (const o of outcomes) {
      if (o.status !== 'INAPPLICABLE') continue
      const subject = this.subject(o.index)
      const child: Redemption = {
        ...this.base(this.tx.id(ID_PREFIX.redemption_failed), parentId),
        ...related(subject),
        result: 'FAILURE',
        status: 'FAILED',
        failure_code: o.error.key,
        failure_message: o.error.message,
      }
      children.push(this.tx.insert('redemptions', child))
      this.tx.emit(
        'customer.redemption.failed',
        this.customer?.id,
        { redemption: { id: child.id, failure_code: child.failure_code } },
        campaignFilters(subject),
      )
    }
    const parent: Redemption = {
      ...this.base(parentId, null),
      result: 'FAILURE',
      status: 'FAILED',
      failure_code: code,
      failure_message: message,
      related_redemptions: { rollbacks: [], redemptions: children.map((c) => c.id) },
    }
    this.tx.insert('redemptions', parent)
    return { redemptions: children, parent_redemption: parent, order: this.loaded.input.order }
  }

  async success(
    redeemed: readonly SubjectOutcome[],
    final: CalculatedOrder,
  ): Promise<Omit<StackedRedemption, 'inapplicable_redeemables' | 'skipped_redeemables'>> {
    const { tx, loaded } = this
    const parentId = tx.id(ID_PREFIX.redemption)
    const children: Redemption[] = []
    for (const o of redeemed) {
      if (o.status !== 'APPLICABLE') continue
      const subject = this.subject(o.index)
      const child: Redemption = {
        ...this.base(tx.id(ID_PREFIX.redemption), parentId),
        ...related(subject),
        order: o.order,
      }
      if (o.gift) {
        child.amount = o.gift.credits
        child.gift = { amount: o.gift.credits }
      }
      if (o.loyalty_card) {
        child.amount = o.loyalty_card.points
        child.loyalty_card = { points: o.loyalty_card.points }
      }
      if (this.request.session?.key) child.session = { key: this.request.session.key }
      if (subject.voucher) {
        const counted = await this.countVoucher(subject.voucher.id, o)
        child.voucher = counted.voucher
        if (counted.taken) child.points_taken = counted.taken
      }
      if (subject.voucher?.is_referral_code && this.customer) {
        await recordReferral(tx, { voucher: subject.voucher, customerId: this.customer.id })
      }
      if (subject.tier) child.promotion_tier = this.countTier(subject.tier.id, o, final)
      children.push(tx.insert('redemptions', child))
      tx.emit(
        'customer.redemption.succeeded',
        this.customer?.id,
        { redemption: { id: child.id, related_object_id: child.related_object_id } },
        campaignFilters(subject),
      )
    }
    const order = this.storeOrder(parentId, children, final)
    if (order.status === 'PAID' && this.loaded.storedOrder?.value.status !== 'PAID' && this.customer) {
      await earnOnOrderPaid(tx, { order, customerId: this.customer.id })
    }
    const parent: Redemption = {
      ...this.base(parentId, null),
      related_object_type: loaded.stackId ? 'promotion_stack' : 'redemption',
      related_object_id: loaded.stackId ?? parentId,
      order,
      related_redemptions: { rollbacks: [], redemptions: children.map((c) => c.id) },
    }
    tx.insert('redemptions', parent)
    if (this.request.session?.key) await releaseSession(tx, this.request.session.key)
    return { redemptions: children, parent_redemption: parent, order }
  }

  /** One more use of the code; its gift credits spent, or its points taken from the ledger, soonest-expiring first. */
  private async countVoucher(
    voucherId: string,
    outcome: Extract<SubjectOutcome, { status: 'APPLICABLE' }>,
  ): Promise<{ voucher: Voucher; taken?: TakenPoints[] }> {
    const stored = this.loaded.vouchers.get(voucherId) as Stored<Voucher>
    const v0 = stored.value
    const uses = (v: Voucher): Voucher['redemption'] => ({
      ...v.redemption,
      redeemed_quantity: v.redemption.redeemed_quantity + 1,
    })
    if (v0.type === 'LOYALTY_CARD') {
      const card = await loadCard(this.tx, stored)
      const points = outcome.loyalty_card?.points ?? 0
      const spent = points > 0 ? spendCard(this.tx, card, points, 'redeemed') : null
      if (spent && !spent.ok) {
        // The pipeline checked the balance on what it read; the ledger disagrees only after a concurrent change.
        throw EngineError.conflict('concurrent_modification', `Loyalty card ${v0.code} changed during the redemption`)
      }
      const voucher = updateCardVoucher(this.tx, card, (v) => ({ ...v, redemption: uses(v) }))
      return spent?.ok ? { voucher, taken: spent.taken } : { voucher }
    }
    const credits = outcome.gift?.credits ?? 0
    const next: Voucher = {
      ...v0,
      redemption: {
        ...uses(v0),
        ...(v0.gift ? { redeemed_amount: (v0.redemption.redeemed_amount ?? 0) + credits } : {}),
      },
      gift: v0.gift
        ? {
            ...v0.gift,
            balance: v0.gift.balance - credits,
            subtracted_amount: (v0.gift.subtracted_amount ?? 0) + credits,
          }
        : null,
      updated_at: this.tx.nowIso,
    }
    this.tx.update('vouchers', stored, next)
    this.loaded.vouchers.set(voucherId, { value: next, version: stored.version })
    return { voucher: next }
  }

  private countTier(
    tierId: string,
    outcome: Extract<SubjectOutcome, { status: 'APPLICABLE' }>,
    final: CalculatedOrder,
  ): PromotionTier {
    const stored = this.loaded.tiers.get(tierId) as Stored<PromotionTier>
    const t0 = stored.value
    const next: PromotionTier = {
      ...t0,
      summary: {
        redemptions: { total_redeemed: t0.summary.redemptions.total_redeemed + 1 },
        orders: {
          total_amount: t0.summary.orders.total_amount + final.amount,
          total_discount_amount:
            t0.summary.orders.total_discount_amount + (outcome.step?.applied.total_discount_amount ?? 0),
        },
      },
    }
    this.tx.update('promotion_tiers', stored, next)
    this.loaded.tiers.set(tierId, { value: next, version: stored.version })
    return next
  }

  /** The order is created, or the stored one updated, with this redemption recorded on it. */
  private storeOrder(parentId: string, children: readonly Redemption[], final: CalculatedOrder): Order {
    const { tx, request } = this
    const stored = this.loaded.storedOrder
    const status: OrderStatus = request.order?.status ?? 'PAID'
    const order: Order = {
      ...final,
      id: stored?.value.id ?? request.order?.id ?? tx.id(ID_PREFIX.order),
      source_id: stored?.value.source_id ?? request.order?.source_id ?? null,
      status,
      created_at: stored?.value.created_at ?? tx.nowIso,
      updated_at: stored ? tx.nowIso : null,
      customer_id: this.customer?.id ?? stored?.value.customer_id ?? null,
      redemptions: {
        ...(stored?.value.redemptions ?? {}),
        [parentId]: {
          date: tx.nowIso,
          related_object_type: 'redemption',
          related_object_id: parentId,
          stacked: children.map((c) => c.id),
        },
      },
    }
    if (this.customer) order.customer = { id: this.customer.id, object: 'customer' }
    if (stored) tx.update('orders', stored, order)
    else tx.insert('orders', order)
    const created = stored ? 'customer.order.updated' : 'customer.order.created'
    tx.emit(created, this.customer?.id, { order: { id: order.id, status } })
    if (status === 'PAID' && stored?.value.status !== 'PAID')
      tx.emit('customer.order.paid', this.customer?.id, { order: { id: order.id } })
    return order
  }
}

function related(
  subject: RedeemableSubject,
): Pick<Redemption, 'related_object_type' | 'related_object_id' | 'related_object_parent_id'> {
  if (subject.tier) {
    return {
      related_object_type: 'promotion_tier',
      related_object_id: subject.tier.id,
      related_object_parent_id: subject.tier.campaign_id,
    }
  }
  return {
    related_object_type: 'voucher',
    related_object_id: subject.voucher?.id ?? subject.requested_id,
    related_object_parent_id: subject.voucher?.campaign_id ?? null,
  }
}

function campaignFilters(subject: RedeemableSubject): { campaign_id?: string | null; campaign_type?: string | null } {
  return subject.campaign ? { campaign_id: subject.campaign.id, campaign_type: subject.campaign.campaign_type } : {}
}

async function rollback(
  tx: Tx,
  parentId: string,
  input: v.InferOutput<typeof rollbackBody>,
  mode: 'WITH_ORDER' | 'WITHOUT_ORDER',
): Promise<StackedRollback> {
  const parent = await tx.store.redemptions.get(parentId)
  if (!parent) throw EngineError.notFound('redemption', parentId)
  if (parent.value.redemption !== null) {
    throw new EngineError({
      code: 400,
      key: 'invalid_redemption_parent',
      message: 'Invalid redemption parent',
      details: 'You can rollback only a redemption that does not have parent redemption.',
      path: 'parentRedemptionId',
    })
  }
  if (parent.value.status === 'ROLLED_BACK') {
    throw new EngineError({
      code: 400,
      key: 'already_rolled_back',
      message: 'Already rolled back',
      details: 'Redemption has been already rolled back.',
    })
  }
  if (parent.value.result !== 'SUCCESS') {
    throw new EngineError({
      code: 400,
      key: 'invalid_redemption',
      message: 'Invalid redemption',
      details: 'Only a successful redemption can be rolled back.',
    })
  }
  if (addDuration(new Date(parent.value.date), ROLLBACK_WINDOW).getTime() < tx.now.getTime()) {
    throw new EngineError({
      code: 400,
      key: 'rollback_period_expired',
      message: 'Rollback period expired',
      details: `Redemption ${parentId} is older than 3 months and can no longer be rolled back.`,
    })
  }
  const customerId = parent.value.customer_id
  const childIds = parent.value.related_redemptions?.redemptions ?? []
  const rollbacks: RedemptionRollback[] = []
  const parentRollbackId = tx.id(ID_PREFIX.redemption_rollback)
  for (const child of await tx.store.redemptions.getMany(childIds)) {
    const rb: RedemptionRollback = {
      id: tx.id(ID_PREFIX.redemption_rollback),
      object: 'redemption_rollback',
      date: tx.nowIso,
      redemption: child.value.id,
      reason: input.reason ?? null,
      result: 'SUCCESS',
      status: 'SUCCEEDED',
      channel: { channel_id: null, channel_type: 'API' },
      customer_id: customerId,
      related_object_type: child.value.related_object_type,
      related_object_id: child.value.related_object_id,
      metadata: input.metadata ?? {},
    }
    if (child.value.amount !== undefined) rb.amount = -child.value.amount
    if (child.value.gift) rb.gift = { amount: -child.value.gift.amount }
    if (child.value.loyalty_card) rb.loyalty_card = { points: -child.value.loyalty_card.points }
    await giveBack(tx, child.value)
    tx.update('redemptions', child, {
      ...child.value,
      status: 'ROLLED_BACK',
      related_redemptions: {
        rollbacks: [{ id: rb.id, date: tx.nowIso, rollback_order_mode: mode }],
        redemptions: child.value.related_redemptions?.redemptions ?? [],
      },
    })
    rollbacks.push(tx.insert('redemption_rollbacks', rb))
    tx.emit('customer.redemption.rollback.succeeded', customerId, {
      rollback: { id: rb.id, redemption: child.value.id },
    })
  }
  const order = await rollbackOrder(tx, parent.value, parentRollbackId, rollbacks, mode)
  const parentRollback: RedemptionRollback = {
    id: parentRollbackId,
    object: 'redemption_rollback',
    date: tx.nowIso,
    redemption: parentId,
    reason: input.reason ?? null,
    result: 'SUCCESS',
    status: 'SUCCEEDED',
    channel: { channel_id: null, channel_type: 'API' },
    customer_id: customerId,
    related_object_type: 'redemption',
    related_object_id: parentId,
    metadata: input.metadata ?? {},
    order,
  }
  tx.insert('redemption_rollbacks', parentRollback)
  tx.update('redemptions', parent, {
    ...parent.value,
    status: 'ROLLED_BACK',
    related_redemptions: {
      rollbacks: [{ id: parentRollbackId, date: tx.nowIso, rollback_order_mode: mode }],
      redemptions: childIds,
    },
  })
  return { rollbacks, parent_rollback: parentRollback, order }
}

/** One use, the credits and the points of a child redemption go back to its voucher or tier. */
async function giveBack(tx: Tx, child: Redemption): Promise<void> {
  if (child.related_object_type === 'voucher') {
    const stored = await tx.store.vouchers.get(child.related_object_id)
    if (!stored) return
    const v0 = stored.value
    const oneUseBack = (v: Voucher): Voucher['redemption'] => ({
      ...v.redemption,
      redeemed_quantity: Math.max(0, v.redemption.redeemed_quantity - 1),
    })
    if (v0.type === 'LOYALTY_CARD') {
      const card = await loadCard(tx, stored)
      if (child.points_taken?.length) refundCard(tx, card, child.points_taken)
      updateCardVoucher(tx, card, (v) => ({ ...v, redemption: oneUseBack(v) }))
      return
    }
    const credits = child.gift?.amount ?? 0
    tx.update('vouchers', stored, {
      ...v0,
      redemption: {
        ...oneUseBack(v0),
        ...(v0.gift ? { redeemed_amount: (v0.redemption.redeemed_amount ?? 0) - credits } : {}),
      },
      gift: v0.gift
        ? {
            ...v0.gift,
            balance: v0.gift.balance + credits,
            subtracted_amount: (v0.gift.subtracted_amount ?? 0) - credits,
          }
        : null,
      updated_at: tx.nowIso,
    })
    return
  }
  if (child.related_object_type === 'promotion_tier') {
    const stored = await tx.store.promotion_tiers.get(child.related_object_id)
    if (!stored) return
    const s = stored.value.summary
    tx.update('promotion_tiers', stored, {
      ...stored.value,
      summary: {
        redemptions: { total_redeemed: Math.max(0, s.redemptions.total_redeemed - 1) },
        orders: {
          total_amount: s.orders.total_amount - (child.order?.amount ?? 0),
          total_discount_amount: s.orders.total_discount_amount - (child.order?.total_applied_discount_amount ?? 0),
        },
      },
    })
  }
}

async function rollbackOrder(
  tx: Tx,
  parent: Redemption,
  rollbackId: string,
  children: readonly RedemptionRollback[],
  mode: 'WITH_ORDER' | 'WITHOUT_ORDER',
): Promise<Order | null> {
  const orderId = parent.order?.id
  if (!orderId) return null
  const stored = await tx.store.orders.get(orderId)
  if (!stored) return null
  const entry = stored.value.redemptions?.[parent.id]
  const reverted = mode === 'WITH_ORDER' && parent.order ? revertOrder(stored.value, parent.order) : stored.value
  const next: Order = {
    ...stored.value,
    ...reverted,
    id: stored.value.id,
    created_at: stored.value.created_at,
    status: mode === 'WITH_ORDER' ? 'CANCELED' : stored.value.status,
    updated_at: tx.nowIso,
    redemptions: {
      ...(stored.value.redemptions ?? {}),
      ...(entry
        ? {
            [parent.id]: {
              ...entry,
              rollback_id: rollbackId,
              rollback_date: tx.nowIso,
              rollback_stacked: children.map((c) => c.id),
            },
          }
        : {}),
    },
  }
  tx.update('orders', stored, next)
  if (mode === 'WITH_ORDER') tx.emit('customer.order.canceled', parent.customer_id, { order: { id: next.id } })
  return next
}
