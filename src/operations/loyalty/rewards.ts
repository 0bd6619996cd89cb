import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Reward, RewardAssignment } from '../../model/loyalty'
import { nonEmptyString } from '../../schema/common'
import { rewardAssignmentInput, rewardInput } from '../../schema/loyalty'
import { parse } from '../../schema/parse'
import type { RewardsCreateAssignmentParams, RewardsCreateParams } from '../../schema/requests'
import { findCampaign } from '../campaigns/campaign-records'
import { enforceMetadata } from '../kernel/metadata-enforcement'
import { type Context, must, mutate } from '../kernel/unit-of-work'
import { assignReward } from './reward-assignments'

/**
 * Rewards (docs/concepts.md#rewards): CAMPAIGN (a coupon, gift credits or points of another program), COIN
 * (pay with points) and MATERIAL (a product, with stock), and their assignments to loyalty programs
 * with a points cost.
 */
export function rewards(ctx: Context) {
  return {
    async create(body: RewardsCreateParams, _options?: CallOptions): Promise<Reward> {
      const input = parse(rewardInput, body)
      return mutate(ctx, async (tx) => {
        const parameters: Reward['parameters'] = {}
        switch (input.type) {
          case 'CAMPAIGN': {
            const ref = input.parameters.campaign
            if (!ref) throw EngineError.invalid('parameters.campaign', 'is required for a CAMPAIGN reward')
            const campaign = await findCampaign(tx.store, ref.id)
            if (!campaign) throw EngineError.notFound('campaign', ref.id)
            const type = campaign.value.campaign_type
            if (type !== 'DISCOUNT_COUPONS' && type !== 'GIFT_VOUCHERS' && type !== 'LOYALTY_PROGRAM') {
              throw EngineError.invalid(
                'parameters.campaign.id',
                `names a ${type} campaign; a reward issues coupons, gift credits or loyalty points`,
              )
            }
            if (type !== 'DISCOUNT_COUPONS' && (ref.balance === undefined || ref.balance <= 0)) {
              // The hosted reward's documented key and wording for a balance "not defined correctly".
              throw new EngineError({
                code: 400,
                key: 'invalid_balance',
                message: "Property 'parameters.campaign.balance' is invalid",
                details: `Property 'parameters.campaign.balance' must be greater than zero for campaign type: ${type} (${type === 'GIFT_VOUCHERS' ? 'credits in minor units' : 'points'})`,
                path: 'parameters.campaign.balance',
              })
            }
            if (type === 'DISCOUNT_COUPONS' && ref.balance !== undefined && ref.balance <= 0) {
              throw EngineError.invalid('parameters.campaign.balance', 'must be positive')
            }
            // `balance` is always shown: null for coupons, which issue a code and no amount.
            parameters.campaign = { id: campaign.value.id, balance: ref.balance ?? null, type }
            break
          }
          case 'COIN':
            if (!input.parameters.coin) throw EngineError.invalid('parameters.coin', 'is required for a COIN reward')
            parameters.coin = input.parameters.coin
            break
          case 'MATERIAL': {
            const product = input.parameters.product
            if (!product) throw EngineError.invalid('parameters.product', 'is required for a MATERIAL reward')
            if (!(await tx.store.products.get(product.id))) throw EngineError.notFound('product', product.id)
            if (product.sku_id) {
              const sku = await tx.store.skus.get(product.sku_id)
              if (!sku || sku.value.product_id !== product.id) throw EngineError.notFound('sku', product.sku_id)
            }
            parameters.product = { id: product.id, sku_id: product.sku_id ?? null }
            break
          }
          default: {
            const _never: never = input.type
            return _never
          }
        }
        if (input.type !== 'MATERIAL' && input.stock != null) {
          throw EngineError.invalid('stock', 'applies to MATERIAL rewards only')
        }
        const reward: Reward = {
          id: tx.id(ID_PREFIX.reward),
          name: input.name,
          type: input.type,
          parameters,
          stock: input.stock ?? null,
          redeemed: 0,
          metadata: await enforceMetadata(tx, 'reward', input.metadata),
          created_at: tx.nowIso,
          updated_at: null,
          object: 'reward',
        }
        // MATERIAL rewards always show their attributes (the service interface lists them), null where not sent.
        if (input.type === 'MATERIAL') {
          reward.attributes = {
            image_url: input.attributes?.image_url ?? null,
            description: input.attributes?.description ?? null,
          }
        } else if (input.attributes) reward.attributes = input.attributes
        return tx.insert('rewards', reward)
      })
    },

    async get(rewardId: string, _options?: CallOptions): Promise<Reward> {
      return (await must(ctx, 'rewards', parse(nonEmptyString, rewardId, 'rewardId'), 'reward', 'rewardId')).value
    },

    /**
     * Assigns a reward to a loyalty program with its points cost. COIN assignments carry no cost (the
     * points follow from the order); a program cannot reward points of itself.
     */
    async createAssignment(
      rewardId: string,
      body: RewardsCreateAssignmentParams,
      _options?: CallOptions,
    ): Promise<RewardAssignment> {
      const id = parse(nonEmptyString, rewardId, 'rewardId')
      const input = parse(rewardAssignmentInput, body)
      return mutate(ctx, (tx) => assignReward(tx, id, input))
    },
  }
}
