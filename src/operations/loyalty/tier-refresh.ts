import { EngineError } from '../../errors'
import type { AsyncAction } from '../../model/async-action'
import { type AsyncHandler, continueLater, enqueue } from '../kernel/jobs'
import type { Tx } from '../kernel/unit-of-work'
import { afterPointsChanged } from './earn-points'
import { loadCard } from './points-ledger'

/**
 * Re-tiering a program's members after its tiers changed (docs/behaviour.md#creating-tiers), as the
 * hosted service refreshes tiers: an async action that walks the program's cards a page at a time,
 * each page one commit, so a program of any size is refreshed in bounded commits that a member's
 * own earning meanwhile conflicts with only page by page (a conflict re-runs that page).
 */
export const TIERS_REFRESH_ACTION = 'CAMPAIGN.LOYALTY_TIERS_REFRESH'

/** Cards read and re-tiered per step. */
export const TIERS_REFRESH_PAGE = 100

/** Queues the refresh in the caller's commit, when the program has a card (none: nobody to re-tier). */
export async function refreshTiersLater(tx: Tx, campaignId: string): Promise<void> {
  const any = await tx.store.vouchers.list({ where: { campaign_id: campaignId }, limit: 1, count: false })
  if (any.data.length > 0) enqueue(tx, TIERS_REFRESH_ACTION, { campaign_id: campaignId })
}

/**
 * One step: a page of the program's cards after the cursor, each held card's tier recalculated. Dated
 * at its due instant, when the tiers were created, however late the runner runs: the tier events and
 * periods are those of that moment, as if re-tiered with the tiers' commit.
 */
export const tiersRefreshHandler: AsyncHandler = {
  datedAtDue: true,
  async run(tx, action: AsyncAction) {
    const { campaign_id: campaignId } = action.payload as { campaign_id: string }
    const state = action.state as { after: string; members: number } | undefined
    const campaign = await tx.store.campaigns.get(campaignId)
    if (!campaign) throw EngineError.notFound('campaign', campaignId)
    const page = await tx.store.vouchers.list({
      where: { campaign_id: campaignId },
      limit: TIERS_REFRESH_PAGE,
      count: false,
      ...(state === undefined ? {} : { starting_after_id: state.after }),
    })
    let members = state?.members ?? 0
    for (const stored of page.data) {
      if (stored.value.type !== 'LOYALTY_CARD' || !stored.value.holder_id) continue
      members++
      await afterPointsChanged(tx, campaign.value, await loadCard(tx, stored))
    }
    const last = page.data[page.data.length - 1]
    if (page.data.length === TIERS_REFRESH_PAGE && last) return continueLater({ after: last.value.id, members })
    return { campaign_id: campaignId, members }
  },
}
