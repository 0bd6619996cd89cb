import type { Campaign } from '../model/campaign'
import type { Customer } from '../model/customer'
import type { EarningRule } from '../model/loyalty'
import type { AsyncAction } from '../model/misc'
import type { CalculatedOrder } from '../model/order'
import type { Stored } from '../ports'
import { evaluateValidationRule } from '../rules/conditions'
import {
  calculateEarnedPoints,
  type EarningInput,
  freeUnits,
  selectEarningRules,
  tierEarningMapping,
} from '../rules/earning'
import { effectiveExpirationRules, pendingActivationDate, pointsExpiryDate } from '../rules/points-expiry'
import type { TierEvent } from '../rules/tiers'
import { checkValidity } from '../rules/validity'
import { autoRedeem } from './auto-redeem'
import type { Tx } from './context'
import { findMemberCard } from './join-once'
import {
  activateCardPoints,
  type CardState,
  creditCard,
  creditPendingCard,
  expireCard,
  loadCard,
  type PendingPointsPayload,
} from './loyalty-ledger'
import { type AssignOptions, enrolMember } from './loyalty-members'
import { memberTier, recalculateTier } from './loyalty-tiers'

/**
 * Firing earning rules (docs/concepts.md#earning-rules, docs/behaviour.md#events): an order becoming PAID, a
 * custom event, a customer entering a segment, and the tier events a credit causes. Only active rules inside
 * their validity windows whose validation rule passes give points; `auto_join` programs enrol a customer who
 * fulfils a rule. Every credit is a bucket expiring by the rule's expiration rules (else the program's), then
 * the member's tier is recalculated, which may fire tier rules in turn.
 */

/** What fired: the event, its customer, and the event's own data. */
export interface EarningTrigger {
  /** `order.paid`, `customer.segment.entered`, a tier event, or a custom event's name. */
  event: string
  customer: Customer
  order?: CalculatedOrder
  segmentId?: string
  customEvent?: { schemaId: string; metadata: Record<string, unknown> }
  /** `loyalty.code` of a custom event: only that card's program earns. */
  cardCode?: string | undefined
}

/** What one trigger credited, per card. */
export interface EarnedPoints {
  campaign_id: string
  voucher_id: string
  earning_rule_id: string
  points: number
}

/** Fires `order.paid` rules for the customer's programs; the redemption pipeline calls it in its transaction. */
export async function earnOnOrderPaid(tx: Tx, input: { order: CalculatedOrder; customer: Customer }): Promise<void> {
  await fireEarningRules(tx, { event: 'order.paid', customer: input.customer, order: input.order })
}

export async function fireEarningRules(tx: Tx, trigger: EarningTrigger): Promise<EarnedPoints[]> {
  const campaigns = await tx.store.campaigns.list({ where: { campaign_type: 'LOYALTY_PROGRAM' } })
  const earned: EarnedPoints[] = []
  const custom = trigger.customEvent ?? null
  for (const campaign of campaigns.data) {
    if (!checkValidity(campaign.value, tx.now, { timeZone: tx.ctx.config.timezone }).ok) continue
    const rules = await campaignRules(tx, campaign.value.id)
    const fired = selectEarningRules(rules, {
      event: trigger.event,
      now: tx.now,
      timeZone: tx.ctx.config.timezone,
      segmentId: trigger.segmentId ?? null,
      customEventSchemaId: custom?.schemaId ?? null,
    })
    if (fired.length === 0) continue
    let card: CardState | null = null
    const held = await findMemberCard(tx, campaign.value.id, trigger.customer.id)
    if (held) card = await loadCard(tx, held)
    if (trigger.cardCode !== undefined && card?.voucher.code !== trigger.cardCode) continue
    for (const rule of fired) {
      if (!(await ruleApplies(tx, rule, trigger))) continue
      const input = earningInput(tx, trigger)
      if (card === null) {
        // auto_join: a customer who fulfils a rule joins; with nothing earned there is nothing to fulfil.
        if (!campaign.value.auto_join || calculateEarnedPoints(rule.loyalty, input) <= 0) continue
        card = (await joinProgram(tx, campaign, trigger.customer, { channel: 'AUTO_JOIN' })).card
      }
      const points = await creditRule(tx, campaign.value, card, rule, input, { order: orderRef(trigger) })
      if (points > 0) {
        earned.push({ campaign_id: campaign.value.id, voucher_id: card.voucher.id, earning_rule_id: rule.id, points })
        await afterPointsAdded(tx, campaign.value, card, new Set())
      }
    }
  }
  return earned
}

/**
 * Assigns a card (`enrolMember`) and, for a new member, places them in the tier their card's points
 * qualify for, in the same transaction: the card's initial points count from the moment it is
 * assigned, so they may be auto-redeemed first and then decide the tier (`customer.loyalty.tier.joined`
 * at sign-up, which may fire tier rules). A returning member keeps the standing they have.
 */
export async function joinProgram(
  tx: Tx,
  campaign: Stored<Campaign>,
  customer: Customer,
  options: AssignOptions = {},
): Promise<{ card: CardState; created: boolean }> {
  const joined = await enrolMember(tx, campaign, customer, options)
  if (joined.created) await afterPointsAdded(tx, campaign.value, joined.card, new Set())
  return joined
}

/**
 * After points were added to a card: the program's auto-redeem reward first, then the tier
 * recalculation on what is left (docs/concepts.md#tiers: auto-redeem runs before the tier checks).
 */
export async function afterPointsAdded(tx: Tx, campaign: Campaign, card: CardState, fired: Set<string>): Promise<void> {
  await autoRedeem(tx, campaign, card)
  await afterPointsChanged(tx, campaign, card, fired)
}

/**
 * Recalculates the member's tier after a change of points and fires the tier rules its events
 * trigger. Each (card, event, tier) fires at most once per transaction: a tier rule whose points
 * cause another transition cannot loop.
 */
export async function afterPointsChanged(
  tx: Tx,
  campaign: Campaign,
  card: CardState,
  fired: Set<string>,
): Promise<void> {
  const events = await recalculateTier(tx, campaign, card)
  for (const event of events) await fireTierRules(tx, campaign, card, event, fired)
}

async function fireTierRules(tx: Tx, campaign: Campaign, card: CardState, event: TierEvent, fired: Set<string>) {
  const key = `${card.voucher.id}|${event.type}|${event.tier_id}`
  if (fired.has(key)) return
  fired.add(key)
  const rules = selectEarningRules(await campaignRules(tx, campaign.id), {
    event: event.type,
    now: tx.now,
    timeZone: tx.ctx.config.timezone,
    tierId: event.tier_id,
  })
  const customerId = card.voucher.holder_id
  if (!customerId) return
  const customer = await customerInTx(tx, customerId)
  if (!customer) return
  const trigger: EarningTrigger = { event: event.type, customer }
  for (const rule of rules) {
    if (!(await ruleApplies(tx, rule, trigger))) continue
    const points = await creditRule(tx, campaign, card, rule, earningInput(tx, trigger), {})
    if (points > 0) await afterPointsAdded(tx, campaign, card, fired)
  }
}

/**
 * The customer as this transaction last wrote them, else as stored: a member created by the same
 * sign-up is not in the store yet when their first tier event fires its rules.
 */
export async function customerInTx(tx: Tx, customerId: string): Promise<Customer | undefined> {
  for (let i = tx.writes.length - 1; i >= 0; i--) {
    const w = tx.writes[i]
    if (w?.op === 'put' && w.collection === 'customers' && (w.value as Customer).id === customerId) {
      return w.value as Customer
    }
  }
  return (await tx.store.customers.get(customerId))?.value
}

const rulesCache = new WeakMap<Tx, Map<string, EarningRule[]>>()

export async function campaignRules(tx: Tx, campaignId: string): Promise<EarningRule[]> {
  let map = rulesCache.get(tx)
  if (!map) {
    map = new Map()
    rulesCache.set(tx, map)
  }
  const known = map.get(campaignId)
  if (known) return known
  const page = await tx.store.earning_rules.list({
    where: { campaign_id: campaignId },
    order: { field: 'created_at', direction: 'asc' },
  })
  const rules = page.data.map((s) => s.value)
  map.set(campaignId, rules)
  return rules
}

/** The rule's full validity (timeframe, days, hours) and its validation rule. */
async function ruleApplies(tx: Tx, rule: EarningRule, trigger: EarningTrigger): Promise<boolean> {
  const timeZone = tx.ctx.config.timezone
  if (!checkValidity(rule, tx.now, { timeZone, timeframeAnchor: rule.created_at }).ok) return false
  if (!rule.validation_rule_id) return true
  const vr = await tx.store.validation_rules.get(rule.validation_rule_id)
  if (!vr) return false
  const order = trigger.order ?? null
  const verdict = evaluateValidationRule(vr.value, {
    order: order ?? {},
    customer: {
      id: trigger.customer.id,
      source_id: trigger.customer.source_id,
      metadata: trigger.customer.metadata,
      segments: trigger.customer.segments ?? [],
    },
    ...(trigger.customEvent ? { custom_event: { metadata: trigger.customEvent.metadata } } : {}),
    now: tx.now,
    timeZone,
  })
  return verdict.passed
}

export function earningInput(tx: Tx, trigger: EarningTrigger): EarningInput {
  const input: EarningInput = {
    customer: { metadata: trigger.customer.metadata, birthdate: trigger.customer.birthdate ?? null },
    now: tx.now,
    timeZone: tx.ctx.config.timezone,
  }
  const o = trigger.order
  if (o) {
    input.order = {
      amount: o.amount,
      total_amount: o.total_amount,
      metadata: o.metadata,
      items: o.items.map((i) => ({
        product_id: i.product_id ?? i.product?.id ?? null,
        sku_id: i.sku_id ?? i.sku?.id ?? null,
        quantity: i.quantity,
        free_quantity: freeUnits(i),
        amount: i.amount,
        subtotal_amount: i.subtotal_amount,
        // Read by points formulas only (ORDER_ITEM_PRICE, ORDER_ITEM_METADATA).
        price: i.price,
        metadata: i.metadata ?? null,
      })),
    }
  }
  if (trigger.customEvent) input.customEvent = { metadata: trigger.customEvent.metadata }
  return input
}

function orderRef(trigger: EarningTrigger): { id?: string; source_id?: string | null } | null {
  const o = trigger.order
  if (!o) return null
  return { ...(o.id === undefined ? {} : { id: o.id }), source_id: o.source_id ?? null }
}

/**
 * Credits what one rule earns on a card (tier mapping applied) and emits the points events. A rule
 * with `pending_points` credits pending points instead: no events and no tier change until they
 * activate (`pendingPointsHandler`); it returns 0, the points that changed the balance.
 */
async function creditRule(
  tx: Tx,
  campaign: Campaign,
  card: CardState,
  rule: EarningRule,
  input: EarningInput,
  extra: { order?: unknown },
): Promise<number> {
  const tier = await memberTier(tx, card)
  const points = calculateEarnedPoints(rule.loyalty, input, tierEarningMapping(tier, rule.id))
  if (points <= 0) return 0
  const rules = effectiveExpirationRules(rule.expiration_rules, campaign.voucher?.loyalty_card?.expiration_rules)
  if (rule.pending_points) {
    creditPendingCard(tx, card, {
      points,
      activatesAt: pendingActivationDate(tx.now, rule.pending_points, tx.ctx.config.timezone),
      source: { type: 'earning_rule', id: rule.id },
      expirationRules: rules ?? null,
      origin: { earning_rule: { id: rule.id }, ...extra },
    })
    return 0
  }
  const expiresAt = pointsExpiryDate(tx.now, rules, tx.ctx.config.timezone)
  creditCard(tx, card, { points, expiresAt, source: { type: 'earning_rule', id: rule.id } })
  emitPointsAdded(tx, campaign, card, points, { earning_rule: { id: rule.id }, ...extra })
  return points
}

/** `points_added` and `rewarded.loyalty_points` (docs/behaviour.md#events) for a credit on a card. */
export function emitPointsAdded(
  tx: Tx,
  campaign: Campaign,
  card: CardState,
  points: number,
  data: Record<string, unknown>,
): void {
  const customerId = card.voucher.holder_id
  const payload = {
    ...data,
    points,
    balance: card.voucher.loyalty_card?.balance ?? 0,
    voucher: { id: card.voucher.id, code: card.voucher.code, loyalty_card: card.voucher.loyalty_card },
  }
  const filters = { campaign_id: campaign.id, campaign_type: campaign.campaign_type, category: 'EFFECT' as const }
  const group_id = tx.id('v_grp_')
  tx.emit('customer.voucher.loyalty_card.points_added', customerId, payload, { ...filters, group_id })
  tx.emit('customer.rewarded.loyalty_points', customerId, payload, { ...filters, group_id })
}

/**
 * The async work queued at a bucket's expiry instant: expires the card's due buckets, emits
 * `points_expired` and recalculates the tier on the new balance.
 */
export async function pointsExpiryHandler(tx: Tx, action: AsyncAction): Promise<unknown> {
  const { voucher_id: voucherId } = action.payload as { voucher_id: string }
  const stored = await tx.store.vouchers.get(voucherId)
  if (!stored) return { expired: 0 }
  const card = await loadCard(tx, stored)
  const expired = expireCard(tx, card)
  if (expired === 0) return { expired: 0 }
  const campaign = stored.value.campaign_id ? await tx.store.campaigns.get(stored.value.campaign_id) : undefined
  emitPointsExpired(tx, card, expired, campaign?.value)
  if (campaign) await afterPointsChanged(tx, campaign.value, card, new Set())
  return { voucher_id: voucherId, expired }
}

/**
 * The async work queued at the instant a member's tier lapses (`TIER_EXPIRY_ACTION`): the tier is
 * recalculated as of then, so the downgrade or prolongation is dated when the tier expired.
 */
export async function tierExpiryHandler(tx: Tx, action: AsyncAction): Promise<unknown> {
  const { voucher_id: voucherId } = action.payload as { voucher_id: string }
  const stored = await tx.store.vouchers.get(voucherId)
  const campaign = stored?.value.campaign_id ? await tx.store.campaigns.get(stored.value.campaign_id) : undefined
  if (!stored || !campaign) return { voucher_id: voucherId }
  await afterPointsChanged(tx, campaign.value, await loadCard(tx, stored), new Set())
  return { voucher_id: voucherId }
}

/** `customer.voucher.loyalty_card.points_expired` for points that lapsed now (by the sweep, or refunded past their expiry). */
export function emitPointsExpired(tx: Tx, card: CardState, points: number, campaign: Campaign | undefined): void {
  tx.emit(
    'customer.voucher.loyalty_card.points_expired',
    card.voucher.holder_id,
    {
      points,
      balance: card.voucher.loyalty_card?.balance ?? 0,
      voucher: { id: card.voucher.id, code: card.voucher.code, loyalty_card: card.voucher.loyalty_card },
    },
    campaign
      ? { campaign_id: campaign.id, campaign_type: campaign.campaign_type, category: 'EFFECT' }
      : { category: 'EFFECT' },
  )
}

/**
 * The async work queued at a pending bucket's activation instant: the points become spendable with
 * their expiry counted from now (docs/concepts.md#points-expiry), the points-added events are emitted and the tier
 * is recalculated (which may fire tier rules).
 */
export async function pendingPointsHandler(tx: Tx, action: AsyncAction): Promise<unknown> {
  const payload = action.payload as PendingPointsPayload
  const stored = await tx.store.vouchers.get(payload.voucher_id)
  if (!stored) return { activated: 0 }
  const card = await loadCard(tx, stored)
  const expiresAt = pointsExpiryDate(tx.now, payload.expiration_rules, tx.ctx.config.timezone)
  const activated = activateCardPoints(tx, card, payload.bucket_id, expiresAt)
  if (activated === 0) return { activated: 0 }
  const campaign = stored.value.campaign_id ? await tx.store.campaigns.get(stored.value.campaign_id) : undefined
  if (campaign) {
    emitPointsAdded(tx, campaign.value, card, activated, payload.origin)
    await afterPointsAdded(tx, campaign.value, card, new Set())
  }
  return { voucher_id: payload.voucher_id, bucket_id: payload.bucket_id, activated }
}
