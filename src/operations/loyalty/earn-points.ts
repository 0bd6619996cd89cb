import { EngineError } from '../../errors'
import type { Campaign } from '../../model/campaign'
import type { Customer } from '../../model/customer'
import type { PointsBucket, Reward } from '../../model/loyalty'
import type { CalculatedOrder } from '../../model/order'
import type { Voucher } from '../../model/voucher'
import type { CascadeResult, CascadeTrigger } from '../../rules/loyalty-cascade'
import { pointsExpiryDate } from '../../rules/points-expiry'
import { checkValidity } from '../../rules/time-validity'
import type { Stored } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'
import { recordCardTransaction } from '../vouchers/card-transactions'
import { findMemberCard } from '../vouchers/held-codes'
import { spendCard } from './card-spend'
import { autoRedeemRun, decideCascade, type LoadedProgram, loadPrograms, loyaltyPrograms } from './cascade'
import { writeStanding } from './member-tiers'
import { type AssignOptions, enrolMember, publishCode, readAheadForAutoJoin } from './members'
import {
  customerInTx,
  type EarnedPoints,
  type EarningTrigger,
  earningInput,
  emitPointsAdded,
  orderRef,
} from './points-events'
import { type CardState, creditCard, creditPendingCard, loadCard, spendablePoints } from './points-ledger'
import { recordRewardRedemption } from './reward-records'
import { guardTier } from './tier-guard'

/**
 * Firing earning rules (docs/concepts.md#earning-rules, docs/behaviour.md#events): an order becoming PAID, a
 * custom event, a customer entering a segment, and the tier events a credit causes. Only active rules inside
 * their validity windows whose validation rule passes give points; `auto_join` programs enrol a customer who
 * fulfils a rule. Every credit is a bucket expiring by the rule's expiration rules (else the program's), then
 * the member's tier is recalculated, which may fire tier rules in turn.
 */

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
    // The customer's cards, read beside the programs, and a new customer's free cards to join with.
    ...campaigns.map((c) => {
      readAheadForAutoJoin(tx, c.value, trigger.customer.id)
      return findMemberCard(tx, c.value.id, trigger.customer.id)
    }),
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
            give: (reward, own, customer) => giveReward(tx, reward, own, customer),
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
  // A BALANCE tier decided on the balance as read holds only while the tier held and the balance stay
  // as it assumed; the guard's answers ride along where they are exact (docs/storage.md#a-members-tier).
  await guardTier(tx, program, card, result)
}

/**
 * Crediting a customer's card of a campaign, and taking the credit back: what a CAMPAIGN reward and
 * a referral program's referee reward give. A gift campaign's card gets `amount` credits (a card is
 * published first when the customer holds none); a loyalty program's card gets `amount` points
 * (joining the program when needed), expiring by the program's rules.
 */
export async function creditCampaignCard(
  tx: Tx,
  target: Stored<Campaign>,
  customer: Customer,
  amount: number,
  origin: { source: PointsBucket['source']; data: Record<string, unknown>; path: string },
): Promise<Voucher> {
  const type = target.value.campaign_type
  switch (type) {
    case 'GIFT_VOUCHERS': {
      const held = (await findMemberCard(tx, target.value.id, customer.id)) ?? (await publishCode(tx, target, customer))
      const gift = held.value.gift ?? { amount: 0, subtracted_amount: 0, balance: 0 }
      const next: Voucher = {
        ...held.value,
        gift: { ...gift, amount: gift.amount + amount, balance: gift.balance + amount },
        updated_at: tx.nowIso,
      }
      tx.update('vouchers', held, next)
      recordCardTransaction(tx, next, 'CREDITS_ADDITION', amount, origin.data)
      tx.emit(
        'customer.voucher.gift.balance_added',
        customer.id,
        { voucher: { id: next.id, code: next.code, gift: next.gift }, amount },
        { campaign_id: target.value.id, campaign_type: type, category: 'EFFECT' },
      )
      return next
    }
    case 'LOYALTY_PROGRAM': {
      const { card } = await joinProgram(tx, target, customer, { channel: 'REWARD' })
      if (amount <= 0) return card.voucher
      creditCard(tx, card, {
        points: amount,
        expiresAt: pointsExpiryDate(
          tx.now,
          target.value.voucher?.loyalty_card?.expiration_rules,
          tx.ctx.config.timezone,
        ),
        source: origin.source,
      })
      emitPointsAdded(tx, target.value, card, amount, origin.data)
      await afterPointsAdded(tx, target.value, card)
      return card.voucher
    }
    case 'DISCOUNT_COUPONS':
    case 'REFERRAL_PROGRAM':
    case 'PROMOTION':
      throw EngineError.invalid(origin.path, `a ${type} campaign has no card to credit`)
    default: {
      const _never: never = type
      return _never
    }
  }
}

/**
 * Takes back a credit `creditCampaignCard` gave, where it is still there: gift credits come off the
 * card's balance, at most what is left (credits already spent are not clawed back); points are
 * subtracted, at most the card's spendable points, soonest expiring first.
 */
export async function takeBackCredit(tx: Tx, issued: Stored<Voucher>, amount: number): Promise<void> {
  const v = issued.value
  if (v.type === 'GIFT_VOUCHER') {
    const gift = v.gift ?? { amount: 0, subtracted_amount: 0, balance: 0 }
    const back = Math.min(amount, gift.balance)
    if (back > 0) {
      // `amount` is the card's lifetime income and `subtracted_amount` what was taken off it other than by
      // redemptions (the hosted `Gift`, docs/behaviour.md#gift-card-balance): a credit taken back is subtracted.
      tx.update('vouchers', issued, {
        ...v,
        gift: { ...gift, subtracted_amount: (gift.subtracted_amount ?? 0) + back, balance: gift.balance - back },
        updated_at: tx.nowIso,
      })
      recordCardTransaction(tx, v, 'CREDITS_REMOVAL', -back)
    }
    return
  }
  if (v.type === 'LOYALTY_CARD') {
    const card = await loadCard(tx, issued)
    const back = Math.min(amount, spendablePoints(tx, card))
    if (back > 0) {
      await spendCard(tx, card, back, { kind: 'subtracted' })
      recordCardTransaction(tx, v, 'POINTS_REMOVAL', -back)
    }
    const campaign = v.campaign_id ? await tx.store.campaigns.get(v.campaign_id) : undefined
    if (campaign) await afterPointsChanged(tx, campaign.value, card)
  }
}

/**
 * What a CAMPAIGN reward gives: a coupon published to the member, credits on the member's gift card
 * (a card is published first when they hold none), or points on their card of another program
 * (joining it when needed). COIN and MATERIAL give nothing here.
 */
export async function giveReward(
  tx: Tx,
  reward: Reward,
  ownCampaign: Campaign,
  customer: Customer,
): Promise<Voucher | null> {
  if (reward.type !== 'CAMPAIGN') return null
  const ref = reward.parameters.campaign
  if (!ref) throw new Error(`reward ${reward.id} has no campaign parameters`)
  const target = await tx.store.campaigns.get(ref.id)
  if (!target) throw EngineError.notFound('campaign', ref.id)
  const type = target.value.campaign_type
  switch (type) {
    case 'DISCOUNT_COUPONS':
      return (await publishCode(tx, target, customer)).value
    case 'GIFT_VOUCHERS':
      return creditCampaignCard(tx, target, customer, ref.balance ?? 0, rewardOrigin(reward))
    case 'LOYALTY_PROGRAM':
      if (target.value.id === ownCampaign.id)
        throw EngineError.invalid('reward.id', 'a loyalty program cannot reward points of itself')
      return creditCampaignCard(tx, target, customer, ref.balance ?? 0, rewardOrigin(reward))
    case 'REFERRAL_PROGRAM':
    case 'PROMOTION':
      throw EngineError.invalid('reward.id', `a ${type} campaign cannot be a reward`)
    default: {
      const _never: never = type
      return _never
    }
  }
}

function rewardOrigin(reward: Reward) {
  return { source: { type: 'reward' as const, id: reward.id }, data: { reward: { id: reward.id } }, path: 'reward.id' }
}
