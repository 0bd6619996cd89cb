import { EngineError } from '../errors'
import type { Customer } from '../model/customer'
import type { PointsEstimation } from '../model/qualification'
import type { ValidationRule } from '../model/validation-rule'
import { normalizeOrder } from '../rules/discounts'
import { estimatePoints } from '../rules/points-estimate'
import { parsePointsEstimateRequest } from '../schema/qualifications'
import { type Context, Tx } from './context'
import { findMemberCard } from './join-once'
import { campaignRules, earningInput } from './loyalty-earning'
import { loadCard } from './loyalty-ledger'
import { campaignTiers, memberTierId } from './loyalty-tiers'
import { loadCatalogue, withCatalogIds } from './stackable/catalogue'
import { findRequestCustomer } from './stackable/load'

/**
 * `POST /v1/loyalties/{campaignId}/qualifications`: the points an order would earn in a program.
 * It reads through the same loaders a payment uses and decides with a pure function; the
 * transaction it reads through is never committed, so nothing is written.
 */
export function loyaltyEstimates(ctx: Context) {
  return {
    async qualifications(campaignId: string, body: unknown): Promise<PointsEstimation> {
      const request = parsePointsEstimateRequest(body)
      const tx = new Tx(ctx)
      const campaign = await ctx.store.campaigns.get(campaignId)
      if (campaign?.value.campaign_type !== 'LOYALTY_PROGRAM') {
        throw EngineError.notFound('campaign', campaignId, 'campaignId')
      }
      const [customer, rules, items] = await Promise.all([
        findRequestCustomer(ctx, request.customer),
        campaignRules(tx, campaignId),
        withCatalogIds(ctx.store, request.order.items ?? []),
      ])
      const { prices } = await loadCatalogue(ctx.store, items, [])
      const order = normalizeOrder({ ...request.order, items }, { prices })
      const ruleIds = [...new Set(rules.flatMap((r) => (r.validation_rule_id ? [r.validation_rule_id] : [])))]
      const held = customer ? await findMemberCard(tx, campaignId, customer.value.id) : undefined
      const [validationRules, card, tiers, standing] = await Promise.all([
        ctx.store.validation_rules.getMany(ruleIds),
        held ? loadCard(tx, held) : null,
        campaignTiers(tx, campaignId),
        held ? ctx.store.member_tiers.get(memberTierId(held.value.id)) : undefined,
      ])
      // A customer the store does not know yet is what the request says of them (no id, no segments).
      const who = customer?.value ?? {
        id: '',
        source_id: request.customer.source_id ?? null,
        metadata: request.customer.metadata ?? {},
        birthdate: request.customer.birthdate ?? null,
      }
      return estimatePoints({
        campaign: campaign.value,
        rules,
        validationRules: Object.fromEntries(validationRules.map((r) => [r.value.id, r.value as ValidationRule])),
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
        card:
          card && customer
            ? {
                voucher_id: card.voucher.id,
                customer_id: customer.value.id,
                balance: card.voucher.loyalty_card?.balance ?? 0,
                buckets: card.buckets,
              }
            : null,
        tiers,
        standing: standing
          ? {
              tier_id: standing.value.tier_id,
              previous_tier_id: standing.value.previous_tier_id ?? null,
              expiration: standing.value.expiration,
            }
          : null,
        now: tx.now,
        timeZone: ctx.config.timezone,
      })
    },
  }
}
