import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import type { Customer } from '../../model/customer'
import type { PointsEstimation } from '../../model/qualification'
import { normalizeOrder } from '../../rules/discounts'
import { estimatePoints } from '../../rules/points-estimate'
import { parsePointsEstimateRequest } from '../../schema/qualification'
import type { LoyaltiesQualificationsParams } from '../../schema/requests'
import { loadCatalogue, withCatalogIds } from '../checkout/catalogue'
import { findRequestCustomer } from '../checkout/load-request'
import { type Context, Tx } from '../kernel/unit-of-work'
import { findMemberCard } from '../vouchers/held-codes'
import { autoRedeemRun, cascadeCard, cascadeCustomer, loadPrograms } from './cascade'
import { earningInput } from './points-events'
import { loadCard } from './points-ledger'

/**
 * `POST /v1/loyalties/{campaignId}/qualifications`: the points an order would earn in a program.
 * It reads through the same loaders a payment uses and decides with a pure function; the
 * transaction it reads through is never committed, so nothing is written.
 */
export function loyaltyEstimates(ctx: Context) {
  return {
    async qualifications(
      campaignId: string,
      body: LoyaltiesQualificationsParams,
      _options?: CallOptions,
    ): Promise<PointsEstimation> {
      const request = parsePointsEstimateRequest(body)
      const tx = new Tx(ctx)
      const campaign = await ctx.store.campaigns.get(campaignId)
      if (campaign?.value.campaign_type !== 'LOYALTY_PROGRAM') {
        throw EngineError.notFound('campaign', campaignId, 'campaignId')
      }
      const [customer, [program], items] = await Promise.all([
        findRequestCustomer(ctx, request.customer),
        loadPrograms(tx, [campaign.value]),
        withCatalogIds(ctx.store, request.order.items ?? []),
      ])
      if (!program) throw EngineError.notFound('campaign', campaignId, 'campaignId')
      const held = customer ? await findMemberCard(tx, campaignId, customer.value.id) : undefined
      const [{ prices }, card, run] = await Promise.all([
        loadCatalogue(ctx.store, items, []),
        held ? loadCard(tx, held) : null,
        customer && program.autoRedeem ? autoRedeemRun(tx, customer.value.id) : { redeemed: 0, runsToday: 0 },
      ])
      const order = normalizeOrder({ ...request.order, items }, { prices })
      // A customer the store does not know yet is what the request says of them (no id, no segments).
      const who = customer?.value ?? {
        id: '',
        source_id: request.customer.source_id ?? null,
        metadata: request.customer.metadata ?? {},
        birthdate: request.customer.birthdate ?? null,
      }
      return estimatePoints({
        program,
        // `earningInput` reads the customer's metadata and birthdate only.
        earning: earningInput(tx, { event: 'order.paid', customer: who as Customer, order }),
        conditions: {
          order,
          customer: {
            id: who.id,
            source_id: who.source_id,
            metadata: who.metadata,
            segments: customer?.value.segments ?? [],
          },
        },
        customer: cascadeCustomer(who as Customer),
        card: card && customer ? await cascadeCard(tx, card, customer.value, program) : null,
        run,
        now: tx.now,
        timeZone: ctx.config.timezone,
      })
    },
  }
}
