import { EngineError } from '../../errors'
import type { AsyncAction } from '../../model/async-action'
import type { Campaign } from '../../model/campaign'
import type { Customer } from '../../model/customer'
import type { Publication } from '../../model/publication'
import type { Voucher } from '../../model/voucher'
import { pointsExpiryDate } from '../../rules/points-expiry'
import { expirationAfterPublishing } from '../../rules/time-validity'
import { nonEmptyString } from '../../schema/common'
import { parse } from '../../schema/parse'
import type { Stored } from '../../storage/ports'
import { findCampaign } from '../campaigns/campaign-records'
import type { Context, Tx } from '../kernel/unit-of-work'
import { countGeneratedCodes } from '../vouchers/code-counts'
import { pickFreeCodes, publicationId, readFreeCodesAhead } from '../vouchers/free-codes'
import { findMemberCard, holdsNoCodeKnown, joinOnce } from '../vouchers/held-codes'
import { codesOnDemand, generateUnusedCodes } from '../vouchers/unused-codes'
import { buildVoucher, specFromCampaign } from '../vouchers/voucher-records'
import { memberStanding } from './member-tiers'
import { type CardState, creditCard, loadCard, newCard, updateCardVoucher } from './points-ledger'

/**
 * Loyalty cards: generating a program's codes (asynchronously, as the hosted service does), and
 * assigning a card to a customer (a publication). Also publishes codes of other campaigns to a
 * customer, which CAMPAIGN rewards need.
 */

export const LOYALTY_CODES_ACTION = 'CAMPAIGN.VOUCHERS_GENERATE'

/** The async work `loyalties.create` queues: generate the codes and mark the campaign DONE. */
export async function loyaltyCodesHandler(tx: Tx, action: AsyncAction): Promise<unknown> {
  const { campaign_id: campaignId, count } = action.payload as { campaign_id: string; count: number }
  const stored = await tx.store.campaigns.get(campaignId)
  if (!stored) throw EngineError.notFound('campaign', campaignId)
  await issueCards(tx, stored.value, count)
  tx.update('campaigns', stored, {
    ...stored.value,
    vouchers_count: stored.value.vouchers_count + count,
    creation_status: 'DONE',
    vouchers_generation_status: 'DONE',
    updated_at: tx.nowIso,
  })
  return { done_count: count }
}

/**
 * A failed generation (its writes discarded) marks the program FAILED instead of leaving it
 * IN_PROGRESS for ever; the cards that exist stay counted.
 */
export async function loyaltyCodesFailure(tx: Tx, action: AsyncAction): Promise<void> {
  const { campaign_id: campaignId } = action.payload as { campaign_id: string }
  const stored = await tx.store.campaigns.get(campaignId)
  if (!stored) return
  tx.update('campaigns', stored, {
    ...stored.value,
    creation_status: 'FAILED',
    vouchers_generation_status: 'FAILED',
    updated_at: tx.nowIso,
  })
}

/** Generates `count` cards of a loyalty program, each holding the template's initial points as a bucket. */
export async function issueCards(tx: Tx, campaign: Campaign, count: number): Promise<CardState[]> {
  if (count === 0) return []
  return cardsWithCodes(
    tx,
    campaign,
    await generateUnusedCodes(tx, campaign.voucher?.code_config ?? {}, count, 'voucher.code_config'),
  )
}

/** The program's new cards with these codes. */
function cardsWithCodes(tx: Tx, campaign: Campaign, codes: readonly string[]): CardState[] {
  const category = campaign.categories[0] ?? null
  return codes.map((code) => {
    const card = newCard(tx, buildVoucher(tx, specFromCampaign(campaign, category, code)))
    const initial = campaign.voucher?.loyalty_card?.points ?? 0
    if (initial > 0) {
      creditCard(tx, card, {
        points: initial,
        expiresAt: pointsExpiryDate(tx.now, campaign.voucher?.loyalty_card?.expiration_rules, tx.ctx.config.timezone),
        source: { type: 'initial' },
      })
    }
    return card
  })
}

export interface AssignOptions {
  /** A specific unassigned code. */
  code?: string | undefined
  source_id?: string | undefined
  metadata?: Record<string, unknown> | undefined
  channel?: string | undefined
}

/**
 * Assigns a loyalty card (`loyalties.createMember`, and `auto_join`). Programs are join-once: a member
 * gets their card back; the same publication `source_id` gets the same card back. Otherwise the named
 * unassigned code, or the oldest free one; an AUTO_UPDATE program makes one when none is free.
 */
export async function enrolMember(
  tx: Tx,
  campaign: Stored<Campaign>,
  customer: Customer,
  options: AssignOptions = {},
): Promise<{ card: CardState; created: boolean }> {
  // The free cards a new member takes are read beside the member's card and the publication by
  // `source_id`, and dropped when either answers (docs/storage.md#a-new-members-reads).
  if (options.code === undefined) readFreeCodesAhead(tx, campaign.value.id)
  const [previous, held] = await Promise.all([
    options.source_id === undefined ? undefined : publicationBySource(tx, campaign.value.id, options.source_id),
    findMemberCard(tx, campaign.value.id, customer.id),
  ])
  if (previous) {
    const stored = await tx.store.vouchers.get(previous.voucher_id)
    if (stored) return { card: await loadCard(tx, stored), created: false }
  }
  if (held) return { card: await loadCard(tx, held), created: false }
  // Join-once under concurrency: a membership row inserted under (program, customer).
  await joinOnce(tx, campaign.value.id, customer.id)
  const card = await takeFreeCard(tx, campaign, options.code)
  publish(tx, campaign.value, card, customer, options)
  return { card, created: true }
}

/**
 * Starts the reads an auto-join enrolment of the customer in the program will need, where it is
 * known without a read that the customer holds no card of it (a customer this transaction creates):
 * the program's free cards, read beside its earning rules (`prefetchMember`, `fireEarningRules`),
 * a level before the cascade decides whether the customer joins (docs/storage.md#a-new-members-reads).
 * Dropped when they do not.
 */
export function readAheadForAutoJoin(tx: Tx, campaign: Campaign, customerId: string): void {
  if (campaign.auto_join && holdsNoCodeKnown(tx, campaign.id, customerId)) readFreeCodesAhead(tx, campaign.id)
}

async function publicationBySource(tx: Tx, campaignId: string, sourceId: string): Promise<Publication | undefined> {
  const page = await tx.store.publications.list({ where: { campaign_id: campaignId, source_id: sourceId }, limit: 1 })
  return page.data[0]?.value
}

async function takeFreeCard(tx: Tx, campaign: Stored<Campaign>, code: string | undefined): Promise<CardState> {
  const c = campaign.value
  if (code !== undefined) {
    const found = await tx.store.vouchers.findBy('code', code)
    if (!found || found.value.campaign_id !== c.id) throw EngineError.notFound('voucher', code)
    if (found.value.holder_id) {
      throw EngineError.conflict(
        'voucher_already_assigned',
        `Voucher ${code} is already assigned to a customer`,
        'voucher',
      )
    }
    return loadCard(tx, found)
  }
  const pendingCodes = new Set(
    tx.writes.filter((w) => w.op === 'put' && w.collection === 'vouchers').map((w) => (w.value as Voucher).id),
  )
  const [first] = await pickFreeCodes(tx, c.id, 1, pendingCodes)
  if (first) {
    tx.claim('vouchers', first.value.id)
    // The cascade that follows an enrolment reads the card's tier standing: read beside its ledger.
    const [card] = await Promise.all([loadCard(tx, first), memberStanding(tx, first.value.id)])
    return card
  }
  if (c.type !== 'AUTO_UPDATE') {
    throw new EngineError({
      code: 409,
      key: 'no_voucher_available',
      message: 'No loyalty card available',
      details: `Campaign ${c.id} is STATIC and has no unassigned loyalty card left; add codes or name one with voucher`,
      path: 'voucher',
    })
  }
  // A card made on demand is counted in the program's counter row, never by rewriting the program
  // (docs/storage.md#shared-rows); its code is an insert under the unique `code`.
  const { counts, codes } = await codesOnDemand(tx, c, 1, 'voucher.code_config')
  const [card] = cardsWithCodes(tx, c, codes)
  if (!card) throw new Error('card generation returned nothing')
  tx.claim('vouchers', card.voucher.id)
  countGeneratedCodes(tx, c, 1, 'voucher.code_config', card.voucher.code, counts)
  return card
}

function publish(tx: Tx, campaign: Campaign, card: CardState, customer: Customer, options: AssignOptions): void {
  const duration = campaign.activity_duration_after_publishing
  updateCardVoucher(tx, card, (v) => ({
    ...v,
    holder_id: customer.id,
    publish: { ...v.publish, count: v.publish.count + 1 },
    expiration_date: expirationAfterPublishing(v, duration, tx.now, tx.ctx.config.timezone),
  }))
  recordPublication(tx, campaign, card.voucher, customer, options)
}

/** The publication row, and `customer.publication.succeeded` (docs/behaviour.md#events). */
export function recordPublication(
  tx: Tx,
  campaign: Campaign,
  voucher: Voucher,
  customer: Customer,
  options: AssignOptions,
): void {
  tx.insert('publications', {
    id: publicationId(tx, options.source_id ?? null, campaign.id),
    voucher_id: voucher.id,
    campaign_id: campaign.id,
    customer_id: customer.id,
    source_id: options.source_id ?? null,
    channel: options.channel ?? 'API',
    metadata: options.metadata ?? {},
    created_at: tx.nowIso,
    object: 'publication',
  })
  tx.emit(
    'customer.publication.succeeded',
    customer.id,
    {
      customer: { id: customer.id, source_id: customer.source_id, object: 'customer' },
      voucher: { id: voucher.id, code: voucher.code, type: voucher.type, campaign_id: campaign.id },
    },
    { campaign_id: campaign.id, campaign_type: campaign.campaign_type },
  )
}

/**
 * Publishes a code of a coupon or gift campaign to a customer (a CAMPAIGN reward): a free code picked
 * at random, else a new one from the campaign's template.
 */
export async function publishCode(tx: Tx, campaign: Stored<Campaign>, customer: Customer): Promise<Stored<Voucher>> {
  let stored = (await pickFreeCodes(tx, campaign.value.id, 1))[0]
  if (stored) tx.claim('vouchers', stored.value.id)
  if (!stored) {
    const current = campaign.value
    const { counts, codes } = await codesOnDemand(tx, current, 1, 'reward.parameters.campaign')
    const [code] = codes
    if (code === undefined) throw new Error('code generation returned nothing')
    const voucher = tx.insert(
      'vouchers',
      buildVoucher(tx, specFromCampaign(current, current.categories[0] ?? null, code)),
    )
    tx.claim('vouchers', voucher.id)
    countGeneratedCodes(tx, current, 1, 'reward.parameters.campaign', code, counts)
    stored = { value: voucher, version: 0 }
  }
  const next: Voucher = {
    ...stored.value,
    holder_id: customer.id,
    publish: { ...stored.value.publish, count: stored.value.publish.count + 1 },
    updated_at: stored.version === 0 ? null : tx.nowIso,
  }
  tx.update('vouchers', stored, next)
  recordPublication(tx, campaign.value, next, customer, {})
  return { value: next, version: stored.version }
}

export async function loyaltyCampaign(ctx: Context, idOrName: string): Promise<Stored<Campaign>> {
  const id = parse(nonEmptyString, idOrName, 'campaignId')
  const found = await findCampaign(ctx.store, id)
  if (found?.value.campaign_type !== 'LOYALTY_PROGRAM') throw EngineError.notFound('campaign', id, 'campaignId')
  return found
}

/** A loyalty card by id or code; with a campaign (id or name), it must belong to it. */
export async function memberCard(ctx: Context, campaignId: string | null, memberId: string): Promise<Stored<Voucher>> {
  const id = parse(nonEmptyString, memberId, 'memberId')
  // The program, the card by id and by code, read together.
  const [campaign, byId, byCode] = await Promise.all([
    campaignId === null ? null : loyaltyCampaign(ctx, campaignId),
    ctx.store.vouchers.get(id),
    ctx.store.vouchers.findBy('code', id),
  ])
  const card = byId ?? byCode
  if (card?.value.type !== 'LOYALTY_CARD') throw EngineError.notFound('voucher', id, 'memberId')
  if (campaign && card.value.campaign_id !== campaign.value.id) throw EngineError.notFound('voucher', id, 'memberId')
  return card
}
