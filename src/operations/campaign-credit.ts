import { EngineError } from '../errors'
import type { Campaign } from '../model/campaign'
import type { Customer } from '../model/customer'
import type { PointsBucket } from '../model/loyalty'
import type { Voucher } from '../model/voucher'
import type { Stored } from '../ports'
import { pointsExpiryDate } from '../rules/points-expiry'
import type { Tx } from './context'
import { findMemberCard } from './join-once'
import { afterPointsAdded, afterPointsChanged, emitPointsAdded, joinProgram } from './loyalty-earning'
import { creditCard, loadCard, spendablePoints, spendCard } from './loyalty-ledger'
import { publishCode } from './loyalty-members'

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
      tx.update('vouchers', issued, {
        ...v,
        gift: { ...gift, amount: gift.amount - back, balance: gift.balance - back },
        updated_at: tx.nowIso,
      })
    }
    return
  }
  if (v.type === 'LOYALTY_CARD') {
    const card = await loadCard(tx, issued)
    const back = Math.min(amount, spendablePoints(tx, card))
    if (back > 0) spendCard(tx, card, back, 'subtracted')
    const campaign = v.campaign_id ? await tx.store.campaigns.get(v.campaign_id) : undefined
    if (campaign) await afterPointsChanged(tx, campaign.value, card)
  }
}
