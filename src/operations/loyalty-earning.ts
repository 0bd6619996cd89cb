import type { Campaign } from '../model/campaign'
import type { Customer } from '../model/customer'
import type { EarningRule } from '../model/loyalty'
import type { AsyncAction } from '../model/misc'
import type { CalculatedOrder } from '../model/order'
import type { Stored } from '../ports'
import { type EarningInput, freeUnits } from '../rules/earning'
import type { CascadeResult, CascadeTrigger } from '../rules/loyalty-cascade'
import { pointsExpiryDate } from '../rules/points-expiry'
import { checkValidity } from '../rules/validity'
import type { Tx } from './context'
import { findMemberCard } from './join-once'
import { autoRedeemRun, decideCascade, type LoadedProgram, loadPrograms, loyaltyPrograms } from './loyalty-cascade'
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
import { writeStanding } from './loyalty-tiers'
import { recordRewardRedemption } from './reward-redemption'

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
  const timeZone = tx.ctx.config.timezone
  const campaigns = (await loyaltyPrograms(tx)).filter((c) => checkValidity(c.value, tx.now, { timeZone }).ok)
  if (campaigns.length === 0) return []
  const [programs] = await Promise.all([
    loadPrograms(
      tx,
      campaigns.map((c) => c.value),
    ),
    // The customer's cards, read beside the programs.
    ...campaigns.map((c) => findMemberCard(tx, c.value.id, trigger.customer.id)),
  ])
  const custom = trigger.customEvent ?? null
  const event: CascadeTrigger = {
    type: 'event',
    event: trigger.event,
    earning: earningInput(tx, trigger),
    conditions: {
      order: trigger.order ?? {},
      ...(custom ? { custom_event: { metadata: custom.metadata } } : {}),
    },
    segmentId: trigger.segmentId ?? null,
    customEventSchemaId: custom?.schemaId ?? null,
  }
  const earned: EarnedPoints[] = []
  for (const [i, campaign] of campaigns.entries()) {
    const program = programs[i] as LoadedProgram
    const held = await findMemberCard(tx, campaign.value.id, trigger.customer.id)
    let card = held ? await loadCard(tx, held) : null
    if (trigger.cardCode !== undefined && card?.voucher.code !== trigger.cardCode) continue
    let result = await decideCascade(tx, program, card, trigger.customer, event)
    if (card === null) {
      // auto_join: a customer who fulfils a rule joins; with nothing earned there is nothing to fulfil.
      if (result.join === null) continue
      const joined = await enrolMember(tx, campaign, trigger.customer, { channel: 'AUTO_JOIN' })
      card = joined.card
      const trigger2 = { ...event, fromRule: result.join, joined: joined.created }
      result = await decideCascade(tx, program, card, trigger.customer, trigger2)
    }
    await applyCascade(tx, program, card, trigger.customer, result, { event: trigger.event, order: orderRef(trigger) })
    for (const step of result.steps) {
      if (step.type === 'credit' && step.pending === null && step.event === trigger.event) {
        earned.push({
          campaign_id: campaign.value.id,
          voucher_id: card.voucher.id,
          earning_rule_id: step.rule.id,
          points: step.points,
        })
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
  if (joined.created) await afterPointsAdded(tx, campaign.value, joined.card)
  return joined
}

/**
 * After points were added to a card: the program's auto-redeem reward first, then the tier
 * recalculation on what is left (docs/concepts.md#tiers: auto-redeem runs before the tier checks).
 */
export async function afterPointsAdded(tx: Tx, campaign: Campaign, card: CardState): Promise<void> {
  await cascadeOn(tx, campaign, card, { type: 'points_added' })
}

/** Recalculates the member's tier after a change of points and fires the tier rules its events trigger. */
export async function afterPointsChanged(
  tx: Tx,
  campaign: Campaign,
  card: CardState,
  holder?: Customer,
): Promise<void> {
  await cascadeOn(tx, campaign, card, { type: 'points_changed' }, holder)
}

async function cascadeOn(
  tx: Tx,
  campaign: Campaign,
  card: CardState,
  trigger: CascadeTrigger,
  known?: Customer,
): Promise<void> {
  const holderId = card.voucher.holder_id
  if (!holderId) return
  const [[program], holder] = await Promise.all([
    loadPrograms(tx, [campaign]),
    known?.id === holderId ? known : customerInTx(tx, holderId),
  ])
  if (!program || !holder) return
  const result = await decideCascade(tx, program, card, holder, trigger)
  await applyCascade(tx, program, card, holder, result, null)
}

/**
 * Writes what the cascade decided, step by step in its order: credits (buckets, `points_added`
 * events, pending activations), auto-redeemed rewards (reward redemptions), tier moves (the standing
 * and its events). `origin` is what the triggering event's own credits say they came from.
 */
async function applyCascade(
  tx: Tx,
  program: LoadedProgram,
  card: CardState,
  holder: Customer,
  result: CascadeResult,
  origin: { event: string; order: unknown } | null,
): Promise<void> {
  const campaign = program.campaign
  for (const step of result.steps) {
    switch (step.type) {
      case 'credit': {
        const source = { type: 'earning_rule' as const, id: step.rule.id }
        const from = {
          earning_rule: { id: step.rule.id },
          ...(origin && step.event === origin.event ? { order: origin.order } : {}),
        }
        if (step.pending) {
          creditPendingCard(tx, card, {
            points: step.points,
            activatesAt: step.pending.activates_at,
            source,
            expirationRules: step.pending.expiration_rules,
            origin: from,
          })
        } else {
          creditCard(tx, card, { points: step.points, expiresAt: step.expires_at, source })
          emitPointsAdded(tx, campaign, card, step.points, from)
        }
        break
      }
      case 'auto_redeem': {
        const offer = program.autoRedeem
        if (!offer) break
        const run = await autoRedeemRun(tx, holder.id)
        for (let i = 0; i < step.times; i++) {
          await recordRewardRedemption(tx, {
            card,
            campaign,
            reward: offer.stored,
            assignmentId: offer.assignment.id,
            holder,
            tierId: step.tier_id,
            points: step.points,
            order: null,
            metadata: {},
            channel: { channel_id: run.id, channel_type: 'AUTO_REDEEM' },
          })
        }
        break
      }
      case 'tier':
        await writeStanding(tx, campaign, card, step.standing, step.events)
        break
      default: {
        const _never: never = step
        return _never
      }
    }
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
  if (campaign) await afterPointsChanged(tx, campaign.value, card)
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
  await afterPointsChanged(tx, campaign.value, await loadCard(tx, stored))
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
    await afterPointsAdded(tx, campaign.value, card)
  }
  return { voucher_id: payload.voucher_id, bucket_id: payload.bucket_id, activated }
}
