import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { RewardAssignment } from '../../model/loyalty'
import type { rewardAssignmentInput } from '../../schema/loyalty'
import type * as v from '../../schema/valibot'
import { findCampaign } from '../campaigns/campaign-records'
import { must, type Tx } from '../kernel/unit-of-work'

/**
 * Assigns a reward to a loyalty program with its points cost, in a transaction: what
 * `rewards.createAssignment` and `loyalties.createRewardAssignments` (the SDK's form) both commit.
 */
export async function assignReward(
  tx: Tx,
  id: string,
  input: v.InferOutput<typeof rewardAssignmentInput>,
): Promise<RewardAssignment> {
  const reward = await must(tx.ctx, 'rewards', id, 'reward', 'rewardId')
  const campaign = await findCampaign(tx.store, input.campaign)
  if (campaign?.value.campaign_type !== 'LOYALTY_PROGRAM') throw EngineError.notFound('campaign', input.campaign)
  const loyalty = input.parameters?.loyalty
  if (reward.value.type === 'COIN') {
    if (loyalty?.points !== undefined) {
      throw EngineError.invalid(
        'parameters.loyalty.points',
        'is not used by a COIN reward (pay with points has no fixed cost)',
      )
    }
  } else if (loyalty?.points === undefined) {
    // The hosted key and wording (docs/behaviour.md#documented-error-keys).
    throw new EngineError({
      code: 400,
      key: 'missing_param',
      message: 'Missing required parameter',
      details: "Parameter 'parameters.loyalty.points' is required: the points the reward costs",
      path: 'parameters.loyalty.points',
    })
  }
  if (reward.value.parameters.campaign?.id === campaign.value.id) {
    throw EngineError.invalid('campaign', 'a loyalty program cannot reward points of itself')
  }
  // The duplicate and the one-auto-redeem checks read a list, and an assignment is only inserted:
  // writing the campaign at the version read here (same value: an assignment does not change the
  // campaign) makes a concurrent second assignment re-read and see the first. A derived id from
  // (reward, campaign) would stop duplicates but not a second auto_redeem reward.
  tx.update('campaigns', campaign, campaign.value)
  const existing = await tx.store.reward_assignments.list({
    where: { related_object_id: campaign.value.id },
  })
  if (existing.data.some((a) => a.value.reward_id === id)) {
    throw EngineError.conflict(
      'duplicate_found',
      `Reward ${id} is already assigned to campaign ${campaign.value.id}`,
      'campaign',
    )
  }
  if (loyalty?.auto_redeem === true && existing.data.some((a) => a.value.parameters?.loyalty?.auto_redeem === true)) {
    throw EngineError.invalid('parameters.loyalty.auto_redeem', 'at most one reward per campaign can be auto-redeemed')
  }
  const assignment: RewardAssignment = {
    id: tx.id(ID_PREFIX.reward_assignment),
    reward_id: id,
    related_object_id: campaign.value.id,
    related_object_type: 'campaign',
    created_at: tx.nowIso,
    updated_at: null,
    object: 'reward_assignment',
  }
  if (loyalty) {
    assignment.parameters = {
      loyalty: {
        ...(loyalty.points === undefined ? {} : { points: loyalty.points }),
        ...(loyalty.auto_redeem === undefined ? {} : { auto_redeem: loyalty.auto_redeem }),
      },
    }
  }
  return tx.insert('reward_assignments', assignment)
}
