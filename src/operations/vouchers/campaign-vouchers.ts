import type { Campaign } from '../../model/campaign'
import type { Voucher } from '../../model/voucher'
import type { Tx } from '../kernel/unit-of-work'
import { generateUnusedCodes } from './unused-codes'
import { buildVoucher, specFromCampaign } from './voucher-records'

/**
 * Generates and inserts `count` vouchers of a campaign from its template: codes from the template's
 * `code_config`, unique in the project, each inheriting the campaign's validity, category, value and
 * redemption quantity. Does not touch the campaign's `vouchers_count` (the caller sets it).
 */
export async function generateCampaignVouchers(
  tx: Tx,
  campaign: Campaign,
  count: number,
  path = 'voucher.code_config',
): Promise<Voucher[]> {
  if (count === 0) return []
  const codes = await generateUnusedCodes(tx, campaign.voucher?.code_config ?? {}, count, path)
  const category = campaign.categories[0] ?? null
  return codes.map((code) => {
    const voucher = tx.insert('vouchers', buildVoucher(tx, specFromCampaign(campaign, category, code)))
    // A concurrent insert of the same code makes the operation pick others, not a 409.
    tx.claim('vouchers', voucher.id)
    return voucher
  })
}
