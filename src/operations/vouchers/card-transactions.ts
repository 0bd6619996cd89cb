import { ID_PREFIX } from '../../ids'
import type { CardTransaction, CardTransactionType } from '../../model/card-transaction'
import type { Voucher } from '../../model/voucher'
import type { Tx } from '../kernel/unit-of-work'

/**
 * Records a movement of a card's credits or points (docs/behaviour.md#card-transactions) in the
 * commit that makes it: an insert of its own row, so concurrent movements of one card never meet on
 * it, and a card's history grows by one row a movement. Nothing is recorded for no movement.
 */
export function recordCardTransaction(
  tx: Tx,
  voucher: Pick<Voucher, 'id' | 'campaign_id'>,
  type: CardTransactionType,
  amount: number,
  details: Record<string, unknown> = {},
  source: CardTransaction['source'] = 'API',
): void {
  if (amount === 0) return
  tx.insert('card_transactions', {
    id: tx.id(ID_PREFIX.card_transaction),
    voucher_id: voucher.id,
    campaign_id: voucher.campaign_id ?? null,
    type,
    amount,
    source,
    reason: null,
    details,
    created_at: tx.nowIso,
  })
}
