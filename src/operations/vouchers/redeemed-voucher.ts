import type { Customer } from '../../model/customer'
import type { ApplicableToEntry, ValidationRule, ValidationRuleAssignment } from '../../model/validation-rule'
import type { Voucher } from '../../model/voucher'
import type { Store } from '../../storage/ports'
import { publicVoucher } from './voucher-records'

interface WireList<T> {
  object: 'list'
  data_ref: 'data'
  data: T[]
  total: number
}

/** What the service interface adds to a voucher embedded in a redemption result (Voucher: "appear on redemption results"). */
export interface RedemptionVoucherExtras {
  holder?: { id: string; source_id: string | null; metadata: Customer['metadata']; object: 'customer' }
  validation_rules_assignments: WireList<ValidationRuleAssignment>
  applicable_to: WireList<ApplicableToEntry>
  inapplicable_to: WireList<ApplicableToEntry>
}

export type RedemptionVoucher = Voucher & RedemptionVoucherExtras

function list<T>(data: T[]): WireList<T> {
  return { object: 'list', data_ref: 'data', data, total: data.length }
}

/**
 * The extras of a redeemed code: its holder, the validation rule assignments that hold for it (its
 * own and its campaign's, oldest first) and the products those rules include and exclude. Read once
 * per redeemed code; `holder` may be passed when the caller has it already.
 */
export async function redemptionVoucherExtras(
  store: Store,
  voucher: Voucher,
  holder?: Customer | null,
): Promise<RedemptionVoucherExtras> {
  const related = voucher.campaign_id ? [voucher.id, voucher.campaign_id] : [voucher.id]
  const [assignments, owner] = await Promise.all([
    store.validation_rule_assignments.list({
      where: { related_object_id: { in: related } },
      order: { field: 'created_at', direction: 'asc' },
      count: false,
    }),
    holder !== undefined || !voucher.holder_id ? holder : store.customers.get(voucher.holder_id).then((c) => c?.value),
  ])
  const ruleIds = [...new Set(assignments.data.map((a) => a.value.rule_id))]
  const rules = ruleIds.length === 0 ? [] : await store.validation_rules.getMany(ruleIds)
  return voucherExtras(
    assignments.data.map((a) => a.value),
    rules.map((r) => r.value),
    owner ?? null,
  )
}

/** The extras from what was read: the assignments (oldest first), the rules they assign, the holder. */
export function voucherExtras(
  assignments: readonly ValidationRuleAssignment[],
  rules: readonly ValidationRule[],
  owner: Customer | null,
): RedemptionVoucherExtras {
  const included: ApplicableToEntry[] = []
  const excluded: ApplicableToEntry[] = []
  for (const value of rules) {
    if (value.applicable_to?.included) included.push(...value.applicable_to.included)
    if (value.applicable_to?.excluded) excluded.push(...value.applicable_to.excluded)
  }
  const extras: RedemptionVoucherExtras = {
    validation_rules_assignments: list([...assignments]),
    applicable_to: list(included),
    inapplicable_to: list(excluded),
  }
  if (owner) extras.holder = { id: owner.id, source_id: owner.source_id, metadata: owner.metadata, object: 'customer' }
  return extras
}

/** The voucher as a redemption result embeds it: the stored voucher with its extras. */
export function withExtras(voucher: Voucher, extras: RedemptionVoucherExtras): RedemptionVoucher {
  return { ...publicVoucher(voucher), ...extras }
}
