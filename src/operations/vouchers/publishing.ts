import { createHash } from 'node:crypto'
import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Campaign } from '../../model/campaign'
import type { SimpleCustomer } from '../../model/common'
import type { Customer } from '../../model/customer'
import type { IdempotencyRecord } from '../../model/idempotency'
import type { Publication, RedeemableHolder } from '../../model/publication'
import type { Voucher } from '../../model/voucher'
import { expirationAfterPublishing } from '../../rules/time-validity'
import type { PublicationInput } from '../../schema/publication'
import type { Stored } from '../../storage/ports'
import { findCampaign } from '../campaigns/campaign-records'
import { withIdempotency } from '../kernel/idempotency-keys'
import { enforceMetadata } from '../kernel/metadata-enforcement'
import { type Context, must, type Tx } from '../kernel/unit-of-work'
import { resolveCustomer, simpleCustomer } from '../shop/customer-records'
import { generateCampaignVouchers } from './campaign-vouchers'
import { checkCodeSpace, countGeneratedCodes } from './code-counts'
import { pickFreeCodes, publicationId } from './free-codes'
import { findMemberCard, joinOnce } from './held-codes'
import { findVoucher, publicVoucher } from './voucher-records'

/** What a publication request returns: the (first) publication, its customer and the codes published. */
export interface PublicationResult extends Publication {
  result: 'SUCCESS'
  /** The customer's `source_id`, as the hosted publication shows it. */
  tracking_id: string | null
  customer: SimpleCustomer
  /** Ids of every voucher published by the request. */
  vouchers_id: string[]
  /** The voucher, when one was published. */
  voucher?: Voucher
  /** The codes, when several were published. */
  vouchers?: string[]
}

/** The role a customer takes by being published a code: the referrer of a referral code, else its owner. */
export function holderRoleOf(voucher: Voucher): RedeemableHolder['holder_role'] {
  return voucher.is_referral_code ? 'REFERRER' : 'OWNER'
}

/** A holder row (not yet written) of `customerId` for `voucher`. */
export function newHolder(
  tx: Tx,
  voucher: Voucher,
  campaign: Campaign | undefined,
  customerId: string,
  role: RedeemableHolder['holder_role'],
): RedeemableHolder {
  return {
    id: holderId(voucher.id, customerId),
    created_at: tx.nowIso,
    redeemable_id: voucher.id,
    redeemable_object: 'voucher',
    campaign_id: voucher.campaign_id,
    campaign_type: campaign?.campaign_type ?? null,
    voucher_type: voucher.type,
    customer_id: customerId,
    holder_role: role,
    object: 'redeemable_holder',
  }
}

/** The holder row of `customerId` for a voucher, if any. */
/**
 * One holder row per code and customer, with an id derived from the pair: two concurrent requests
 * that would both add it insert the same id, so the store lets one in and the other re-reads.
 */
export function holderId(voucherId: string, customerId: string): string {
  return `${ID_PREFIX.redeemable_holder}${createHash('sha256').update(`${voucherId}:${customerId}`).digest('base64url').slice(0, 24)}`
}

export async function findHolder(
  tx: Tx,
  voucherId: string,
  customerId: string,
): Promise<Stored<RedeemableHolder> | undefined> {
  return tx.store.redeemable_holders.get(holderId(voucherId, customerId))
}

/**
 * Publishes one code to a customer inside the caller's transaction: a publication, the voucher's
 * `holder_id` (and `referrer_id` for a referral code) and `publish.count`, a holder row (REFERRER for a
 * referral code, OWNER otherwise) unless the customer already holds it, and
 * `customer.publication.succeeded`. A code held by another customer is a 400: a code has one holder.
 * `metadata` must already have been checked (it is the publication's).
 */
export async function publishVoucher(
  tx: Tx,
  args: {
    voucher: Stored<Voucher>
    campaign: Campaign | undefined
    customer: Customer
    source_id: string | null
    channel: string | null
    metadata: Record<string, unknown>
    path?: string
    /** The code was picked from the campaign's free codes: claim it so that no concurrent publication takes it too. */
    claim?: boolean
  },
): Promise<{ publication: Publication; voucher: Voucher }> {
  const { voucher: stored, campaign, customer } = args
  const current = stored.value
  if (current.holder_id && current.holder_id !== customer.id) {
    // The hosted 400 and wording (docs/behaviour.md#publication-errors).
    throw new EngineError({
      code: 400,
      key: 'voucher_already_published',
      message: 'Voucher already published',
      details: `Voucher '${current.id}' (${current.code}) has already been published`,
      path: args.path ?? 'voucher',
    })
  }
  const publication = tx.insert('publications', {
    id: publicationId(tx, args.source_id),
    voucher_id: current.id,
    campaign_id: current.campaign_id,
    customer_id: customer.id,
    source_id: args.source_id,
    channel: args.channel ?? 'API',
    metadata: args.metadata,
    created_at: tx.nowIso,
    object: 'publication',
  })
  const next: Voucher = {
    ...current,
    holder_id: customer.id,
    ...(current.is_referral_code ? { referrer_id: customer.id } : {}),
    publish: { ...current.publish, count: current.publish.count + 1 },
    expiration_date: expirationAfterPublishing(
      current,
      campaign?.activity_duration_after_publishing,
      tx.now,
      tx.ctx.config.timezone,
    ),
    updated_at: tx.nowIso,
  }
  if (args.claim && stored.version > 0) {
    // A free code is claimed with a guarded increment: if a concurrent publication took it first, the
    // guard fails and this one picks again, instead of failing on a version clash.
    tx.increment(
      'vouchers',
      current.id,
      { 'publish.count': 1 },
      {
        guard: { 'publish.count': { max: current.publish.count + 1 } },
        set: {
          holder_id: customer.id,
          ...(current.is_referral_code ? { referrer_id: customer.id } : {}),
          expiration_date: next.expiration_date ?? null,
          updated_at: tx.nowIso,
        },
      },
    )
  } else tx.update('vouchers', stored, next)
  if (!(await findHolder(tx, current.id, customer.id))) {
    tx.insert('redeemable_holders', newHolder(tx, current, campaign, customer.id, holderRoleOf(current)))
  }
  tx.emit(
    'customer.publication.succeeded',
    customer.id,
    {
      publication: { id: publication.id, source_id: publication.source_id, channel: publication.channel },
      voucher: { id: next.id, code: next.code, campaign_id: next.campaign_id, is_referral_code: next.is_referral_code },
    },
    { campaign_id: next.campaign_id, campaign_type: campaign?.campaign_type ?? null },
  )
  return { publication, voucher: next }
}

function resultOf(first: Publication, customer: Customer, published: Voucher[]): PublicationResult {
  const result: PublicationResult = {
    ...first,
    result: 'SUCCESS',
    tracking_id: customer.source_id,
    customer: simpleCustomer(customer),
    vouchers_id: published.map((p) => p.id),
  }
  if (published.length === 1 && published[0]) result.voucher = publicVoucher(published[0])
  else result.vouchers = published.map((p) => p.code)
  return result
}

/** Free codes of a campaign (no holder), picked at random; an AUTO_UPDATE campaign makes the missing ones. */
async function freeCodes(tx: Tx, stored: Stored<Campaign>, count: number): Promise<Stored<Voucher>[]> {
  const campaign = stored.value
  const found = await pickFreeCodes(tx, campaign.id, count)
  const missing = count - found.length
  if (missing === 0) return found
  if (campaign.type !== 'AUTO_UPDATE') {
    throw new EngineError({
      code: 400,
      key: 'no_voucher_suitable_for_publication',
      message: "Couldn't find any voucher suitable for publication",
      details: `Campaign ${campaign.name} has ${found.length} unpublished code(s); ${count} requested and a STATIC campaign makes no new ones`,
      path: 'campaign',
    })
  }
  // A code made here is an insert; publishing it updates that same put (`Tx.update` merges them). The
  // campaign's row is not written: the codes made are counted in its counter row (docs/storage.md#shared-rows).
  const counts = await checkCodeSpace(tx, campaign, missing, 'campaign')
  const made = await generateCampaignVouchers(tx, campaign, missing, 'campaign')
  countGeneratedCodes(tx, campaign, missing, 'campaign', made[0]?.code ?? '', counts)
  return [...found, ...made.map((value) => ({ value, version: 0 }))]
}

/** The publication operation; `requireCampaignType` restricts it (referrals publish only referral codes). */
export async function publish(
  ctx: Context,
  input: PublicationInput,
  requireCampaignType?: Campaign['campaign_type'],
  options?: CallOptions,
): Promise<PublicationResult> {
  const campaignRef = typeof input.campaign === 'string' ? input.campaign : input.campaign?.name
  const count = typeof input.campaign === 'object' ? (input.campaign.count ?? 1) : 1
  if (input.voucher === undefined && campaignRef === undefined) {
    // The hosted key and wording (docs/behaviour.md#publication-errors).
    throw new EngineError({
      code: 400,
      key: 'missing_vouchers',
      message: 'Missing vouchers',
      details: 'Either Campaign or Voucher is required (the code to publish, or the campaign to take it from)',
      path: 'voucher',
    })
  }
  if (input.voucher !== undefined && count !== 1) throw tooManyRequested('when a voucher is given')
  if (input.source_id !== undefined && count !== 1) {
    throw tooManyRequested('when source_id is given (one voucher per request)')
  }
  if (!input.customer.id && !input.customer.source_id) {
    throw EngineError.invalid('customer', 'needs an id or a source_id')
  }
  const call = {
    operation: 'publications.create',
    input,
    reference: (r: PublicationResult) => ({ ids: [r.id, r.customer.id, ...r.vouchers_id] }),
    replay: async (record: IdempotencyRecord): Promise<PublicationResult> => {
      const [publicationId = '', customerId = '', ...voucherIds] = record.result_ids
      const [publication, customer, vouchers] = await Promise.all([
        must(ctx, 'publications', publicationId, 'publication'),
        must(ctx, 'customers', customerId, 'customer'),
        ctx.store.vouchers.getMany(voucherIds),
      ])
      return resultOf(
        publication.value,
        customer.value,
        vouchers.map((s) => s.value),
      )
    },
  }
  return withIdempotency(ctx, options, call, async (tx) => {
    if (input.source_id !== undefined) {
      const previous = await previousPublication(tx, input.source_id)
      if (previous) {
        const c = previous.customer
        if (input.customer.id === c.id || (input.customer.source_id && input.customer.source_id === c.source_id)) {
          return previous
        }
        throw new EngineError({
          code: 400,
          key: 'duplicate_source_id',
          message: 'Duplicate source_id',
          details: `Publication with source_id: '${input.source_id}' already exists (for customer ${c.id})`,
          path: 'source_id',
        })
      }
    }
    // Reads that do not depend on each other are issued together (one round trip on a database:
    // docs/storage.md#load-decide-commit), then awaited in the order the checks were made one by one,
    // so a request with several faults always reports the same one.
    const campaignP = campaignRef === undefined ? undefined : findCampaign(tx.store, campaignRef)
    const givenP = input.voucher === undefined ? undefined : findVoucher(tx.store, input.voucher)
    const metaP = enforceMetadata(tx, 'publication', input.metadata)
    const customerP = publicationCustomer(tx, input.customer)
    await Promise.allSettled([campaignP, givenP, metaP, customerP])
    const campaign = await campaignP
    if (campaignRef !== undefined && !campaign) throw EngineError.notFound('campaign', campaignRef)
    if (campaign && !campaign.value.voucher) {
      throw EngineError.invalid('campaign', `${campaign.value.campaign_type} campaigns have no codes to publish`)
    }
    const given = await givenP
    if (input.voucher !== undefined) {
      if (!given) throw EngineError.notFound('voucher', input.voucher)
      if (campaign && given.value.campaign_id !== campaign.value.id) {
        throw EngineError.invalid('voucher', `is not a code of campaign ${campaign.value.name}`)
      }
    }
    const owning =
      campaign?.value ??
      (given?.value.campaign_id ? (await tx.store.campaigns.get(given.value.campaign_id))?.value : undefined)
    if (requireCampaignType && owning?.campaign_type !== requireCampaignType) {
      throw EngineError.invalid(
        input.voucher !== undefined ? 'voucher' : 'campaign',
        `must be a ${requireCampaignType} code`,
      )
    }
    const meta = await metaP
    const customer = await customerP
    if (!customer) throw EngineError.invalid('customer', 'needs an id or a source_id')
    let held: Stored<Voucher> | undefined
    if (owning?.join_once) {
      // join_once: a customer holds one code of the campaign; every later request gets it back.
      held = await findMemberCard(tx, owning.id, customer.value.id)
      if (held) {
        const publication = await publicationOf(tx, held.value.id, customer.value.id)
        if (publication) return resultOf(publication, customer.value, [held.value])
      } else {
        if (count !== 1) throw tooManyRequested('in a join_once campaign')
        await joinOnce(tx, owning.id, customer.value.id)
      }
    }
    const codes = held ? [held] : given ? [given] : await freeCodes(tx, campaign as Stored<Campaign>, count)
    const published: Voucher[] = []
    let first: Publication | undefined
    for (const code of codes) {
      const out = await publishVoucher(tx, {
        voucher: code,
        claim: input.voucher === undefined,
        campaign: owning,
        customer: customer.value,
        source_id: input.source_id ?? null,
        channel: input.channel ?? null,
        metadata: meta,
      })
      first ??= out.publication
      published.push(out.voucher)
    }
    if (!first) throw new Error('a publication publishes at least one code')
    return resultOf(first, customer.value, published)
  })
}

/**
 * The request's customer, found or made in one level of reads: by `source_id`, read with the
 * customers' metadata schema that a new one is checked against.
 */
async function publicationCustomer(tx: Tx, input: PublicationInput['customer']): Promise<Stored<Customer> | undefined> {
  if (input.id || !input.source_id) return resolveCustomer(tx, input, { create: true })
  const [found, schema] = await Promise.all([
    tx.store.customers.findBy('source_id', input.source_id),
    tx.store.metadata_schemas.findBy('related_object', 'customer'),
  ])
  return found ?? resolveCustomer(tx, input, { create: true, known: { schema } })
}

/**
 * The first publication of a code to the customer (a held code without one is published again). Read
 * by the customer's index: a customer holds few publications.
 */
async function publicationOf(tx: Tx, voucherId: string, customerId: string): Promise<Publication | undefined> {
  const page = await tx.store.publications.list({
    where: { customer_id: customerId },
    order: { field: 'created_at', direction: 'asc' },
    count: false,
  })
  return page.data.find((s) => s.value.voucher_id === voucherId)?.value
}

/** A request repeated with its `source_id` gets the first result back, and writes nothing. */
async function previousPublication(tx: Tx, sourceId: string): Promise<PublicationResult | undefined> {
  const page = await tx.store.publications.list({ where: { source_id: sourceId }, count: false })
  const first = page.data[0]?.value
  if (!first) return undefined
  const [voucher, customer] = await Promise.all([
    tx.store.vouchers.get(first.voucher_id),
    tx.store.customers.get(first.customer_id),
  ])
  if (!voucher || !customer) return undefined
  return resultOf(first, customer.value, [voucher.value])
}

/**
 * More codes asked for than one request may publish: the hosted publication's documented
 * `too_many_vouchers_requested` ("Only up to 1 can be published"), naming `campaign.count`
 * (docs/behaviour.md#publication-errors).
 */
function tooManyRequested(when: string): EngineError {
  return new EngineError({
    code: 400,
    key: 'too_many_vouchers_requested',
    message: 'Too many vouchers requested',
    details: `Only up to 1 can be published ${when}`,
    path: 'campaign.count',
  })
}
