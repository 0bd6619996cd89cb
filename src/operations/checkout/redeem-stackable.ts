import { ID_PREFIX } from '../../ids'
import type { SimpleCustomer } from '../../model/common'
import type { Customer } from '../../model/customer'
import type { CalculatedOrder, Order, OrderStatus } from '../../model/order'
import type { PromotionTier } from '../../model/promotion'
import type { Redemption } from '../../model/redemption'
import type { Voucher } from '../../model/voucher'
import type { TakenPoints } from '../../rules/ledger'
import { withOrderRef } from '../../rules/order-refs'
import { withoutTargets } from '../../rules/qualifications'
import type { RedeemableResult, RedeemableSubject, SubjectOutcome } from '../../rules/redeemables'
import { referrerOf } from '../../rules/referral-codes'
import type { StackableRequest } from '../../schema/stackable'
import type { Guard, Stored } from '../../storage/ports'
import { StaleRead, type Tx } from '../kernel/unit-of-work'
import { spendCard } from '../loyalty/card-spend'
import { countCardUse, loadCard } from '../loyalty/points-ledger'
import { simpleCustomer } from '../shop/customer-records'
import { insertOrder, updateOrder, versionAfterWrite } from '../shop/order-records'
import { countRedemptionInSummary } from '../shop/summary-counters'
import { trackingId } from '../shop/tracking-id'
import { redemptionVoucherExtras, withExtras } from '../vouchers/redeemed-voucher'
import type { LoadedRequest } from './load-request'
import { counterScope, countRedemption, countUnits, isUnlimitedCoupon, tierShare } from './redemption-counters'
import { lockGuards, releasedBy, releaseLocks, releaseLocksOf } from './session-locks'

/** What `redeemStackable` returns. */
export interface StackedRedemption {
  redemptions: Redemption[]
  parent_redemption: Redemption
  order: CalculatedOrder
  inapplicable_redeemables: RedeemableResult[]
  skipped_redeemables: RedeemableResult[]
}

/**
 * What a successful redemption sets off beyond its own writes, for the operation to run as steps after
 * them (docs/design.md#layers): referral codes redeemed by a customer convert (their child
 * redemption at `at` shows the referee's credit), and an order that became `PAID` earns its customer points.
 */
export interface Reactions {
  referrals: { at: number; voucher: Voucher; customerId: string }[]
  paid?: { order: Order; customer: Customer }
}

/** A successful redemption as written, before its records: the result, and what it sets off. */
export interface WrittenRedemption {
  redemptions: Redemption[]
  parent_redemption: Redemption
  order: Order
  reactions: Reactions
}

/** Builds the writes of one redemption request. */
export class RedemptionWriter {
  private readonly tracking: string | null
  private readonly simpleCustomer: SimpleCustomer | null

  constructor(
    private readonly tx: Tx,
    private readonly request: StackableRequest,
    private readonly loaded: LoadedRequest,
    private readonly customer: Customer | undefined,
  ) {
    this.tracking = trackingId(customer, request)
    this.simpleCustomer = customer ? simpleCustomer(customer) : null
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
      countRedemptionInSummary(this.tx, child)
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
      related_redemptions: { rollbacks: [], redemptions: children.map((c) => ({ id: c.id, date: c.date })) },
    }
    this.tx.insert('redemptions', parent)
    return { redemptions: children, parent_redemption: parent, order: this.loaded.input.order }
  }

  /**
   * The redemption's own writes: each redeemable's use, credits or points and its counters, the tier
   * summaries and the order. What the redemption sets off in other domains is returned as
   * `reactions` for the operation to run; the redemption records are written by `record`.
   */
  async success(redeemed: readonly SubjectOutcome[], final: CalculatedOrder): Promise<WrittenRedemption> {
    const { tx, loaded } = this
    const parentId = tx.id(ID_PREFIX.redemption)
    const children: Redemption[] = []
    // Counter increments of the redeemables already written: the next one's guards count them.
    const pending = new Map<string, Record<string, number>>()
    const referrals: Reactions['referrals'] = []
    // A redeemed referral code names its referrer on the order (docs/behaviour.md#referrals).
    let referrerId: string | null = null
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
        const extras =
          loaded.extras.get(counted.voucher.id) ?? (await redemptionVoucherExtras(tx.store, counted.voucher))
        child.voucher = withExtras(counted.voucher, extras)
        if (counted.taken) child.points_taken = counted.taken
        counted.recordIn?.(child.id)
        // The result shows the code as the commit left it (its uses and balance after every concurrent redemption).
        const at = children.length
        const slot = `vouchers/${subject.voucher.id}`
        tx.onCommit(({ values }) => {
          const after = values[slot] as Voucher | undefined
          if (after) children[at] = { ...(children[at] as Redemption), voucher: withExtras(after, extras) }
        })
      }
      const scope = counterScope(subject, this.customer)
      if (scope) {
        const count = {
          scope,
          at: tx.now,
          timeZone: tx.ctx.config.timezone,
          orderAmount: o.order.amount ?? 0,
          discount: o.order.total_applied_discount_amount ?? 0,
          ...(o.budget_bounds ? { bounds: o.budget_bounds } : {}),
        }
        countRedemption(tx, count, loaded.counters, pending)
      }
      if (o.unit_budgets) {
        const units = countUnits(tx, subject, this.customer, o.order.items, loaded.input.collections, o.unit_budgets)
        if (units) child.unit_counts = units
      }
      if (subject.voucher?.is_referral_code) referrerId = referrerId ?? referrerOf(subject.voucher)
      if (subject.voucher?.is_referral_code && this.customer) {
        referrals.push({ at: children.length, voucher: subject.voucher, customerId: this.customer.id })
      }
      if (subject.tier) child.promotion_tier = this.countTier(subject.tier.id, o)
      children.push(child)
      tx.emit(
        'customer.redemption.succeeded',
        this.customer?.id,
        { redemption: { id: child.id, related_object_id: child.related_object_id } },
        campaignFilters(subject),
      )
    }
    const order = this.storeOrder(parentId, children, final, referrerId)
    const paid = order.status === 'PAID' && this.loaded.storedOrder?.value.status !== 'PAID' && this.customer
    const parent: Redemption = {
      ...this.base(parentId, null),
      related_object_type: loaded.stackId ? 'promotion_stack' : 'redemption',
      related_object_id: loaded.stackId ?? parentId,
      order,
      related_redemptions: { rollbacks: [], redemptions: children.map((c) => ({ id: c.id, date: c.date })) },
    }
    return {
      redemptions: children,
      parent_redemption: parent,
      order,
      reactions: { referrals, ...(paid ? { paid: { order, customer: paid } } : {}) },
    }
  }

  /**
   * Records the redemptions once the reactions have run (a referral's conversion adds the referee's
   * credit to its child), and releases the session: the last writes of the commit.
   */
  async record(written: WrittenRedemption): Promise<Omit<WrittenRedemption, 'reactions'>> {
    const { tx, loaded } = this
    const { reactions: _reactions, ...result } = written
    // The order is stored once: the redemptions refer to the version this commit writes (docs/storage.md#what-a-redemption-stores).
    const version = versionAfterWrite(loaded.storedOrder)
    for (const child of result.redemptions) {
      tx.insert('redemptions', withOrderRef(child, result.order, version))
      countRedemptionInSummary(tx, child)
    }
    tx.insert('redemptions', withOrderRef(result.parent_redemption, result.order, version))
    // The session's other locks are released too; a redeemed code's own lock its increment consumed.
    if (this.request.session?.key) releaseLocks(tx, [...loaded.locks.own.values()], this.consumed, loaded.locks.gone)
    return result
  }

  /** The codes whose own session lock this redemption's increment took out of their counter. */
  private readonly consumed = new Set<string>()

  /** One more use of the code; its gift credits spent, or its points taken from the ledger, soonest-expiring first. */
  private async countVoucher(
    voucherId: string,
    outcome: Extract<SubjectOutcome, { status: 'APPLICABLE' }>,
  ): Promise<{ voucher: Voucher; taken?: TakenPoints[]; recordIn?: (redemptionId: string) => void }> {
    const stored = this.loaded.vouchers.get(voucherId) as Stored<Voucher>
    const v0 = stored.value
    const uses = (v: Voucher): Voucher['redemption'] => ({
      ...v.redemption,
      redeemed_quantity: v.redemption.redeemed_quantity + 1,
    })
    if (v0.type === 'LOYALTY_CARD') {
      const card = await loadCard(this.tx, stored)
      const points = outcome.loyalty_card?.points ?? 0
      if (points === 0) return { voucher: countCardUse(this.tx, card, 1) }
      // The request's own lock and the expired ones it read leave the card's counter in the spend's
      // increment, and the points other sessions lock stay on the card at commit
      // (docs/storage.md#session-locks): a lock holder always gets what was reserved for them.
      const released = releaseLocksOf(this.tx, voucherId, this.loaded.locks)
      this.consumed.add(voucherId)
      // A guarded decrement of the balance (with the card's use) and the points taken from the buckets
      // at commit: concurrent spends on one card all land while the points last.
      const spent = await spendCard(this.tx, card, points, { use: true, locks: { released: releasedBy(released) } })
      if (!spent.ok) {
        // The pipeline checked the balance on what it read; the ledger disagrees only after a concurrent change.
        throw new StaleRead(`vouchers/${v0.id} (points spent during the redemption)`)
      }
      // The points the store takes at commit are named in the child redemption (docs/storage.md#taking-points).
      return { voucher: card.voucher, taken: spent.taken, recordIn: (id) => spent.recordIn('redemptions', id) }
    }
    const credits = outcome.gift?.credits ?? 0
    // The request's own lock (it gets what was reserved for it) and the expired locks read for this
    // code leave its counter in this same increment (docs/storage.md#session-locks).
    const released = releaseLocksOf(this.tx, voucherId, this.loaded.locks)
    this.consumed.add(voucherId)
    const next: Voucher = {
      ...v0,
      redemption: {
        ...uses(v0),
        ...(v0.gift ? { redeemed_amount: (v0.redemption.redeemed_amount ?? 0) + credits } : {}),
      },
      // Spent credits are the code's `redeemed_amount`, not `subtracted_amount` (docs/behaviour.md#gift-card-balance).
      gift: v0.gift ? { ...v0.gift, balance: v0.gift.balance - credits } : null,
      updated_at: this.tx.nowIso,
    }
    // Uses and balances are guarded increments, not rewrites of what was read: concurrent redemptions
    // of one code all land until the quantity or the balance runs out, and the one past it decides again.
    const by: Record<string, number> = { 'redemption.redeemed_quantity': 1 }
    Object.assign(by, releasedBy(released))
    // The quantity and balance as stored at commit, not as read, with the live locks of other
    // sessions counted in: a quantity lowered meanwhile is never overrun, a lock never overtaken.
    const guard: Record<string, Guard> = lockGuards(v0, 'uses')
    if (v0.gift) {
      by['redemption.redeemed_amount'] = credits
      by['gift.balance'] = -credits
    }
    this.tx.increment('vouchers', voucherId, by, {
      ...(Object.keys(guard).length > 0 ? { guard } : {}),
      ...(isUnlimitedCoupon(v0) ? {} : { set: { updated_at: this.tx.nowIso } }),
    })
    return { voucher: next }
  }

  private countTier(tierId: string, outcome: Extract<SubjectOutcome, { status: 'APPLICABLE' }>): PromotionTier {
    const t0 = (this.loaded.tiers.get(tierId) as Stored<PromotionTier>).value
    const share = tierShare(outcome.order)
    // Every checkout may redeem the same tier: its counters are increments, which never conflict.
    this.tx.increment('promotion_tiers', tierId, {
      'summary.redemptions.total_redeemed': 1,
      'summary.orders.total_amount': share.amount,
      'summary.orders.total_discount_amount': share.discount,
    })
    // The tier as this request saw it plus its own share: the redemption's snapshot.
    return {
      ...withoutTargets(t0),
      summary: {
        redemptions: { total_redeemed: t0.summary.redemptions.total_redeemed + 1 },
        orders: {
          total_amount: t0.summary.orders.total_amount + share.amount,
          total_discount_amount: t0.summary.orders.total_discount_amount + share.discount,
        },
      },
    }
  }

  /** The order is created, or the stored one updated, with this redemption recorded on it. */
  private storeOrder(
    parentId: string,
    children: readonly Redemption[],
    final: CalculatedOrder,
    referrerId: string | null,
  ): Order {
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
    const referrer = referrerId ?? stored?.value.referrer_id ?? null
    if (referrer) {
      order.referrer_id = referrer
      order.referrer = { id: referrer, object: 'customer' }
    }
    if (stored) updateOrder(tx, stored, order)
    else insertOrder(tx, order)
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
