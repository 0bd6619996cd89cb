import type { Voucher } from '../../model/voucher'
import type { Stored } from '../../storage/ports'
import { startEarly } from '../kernel/early-reads'
import type { Tx } from '../kernel/unit-of-work'

/**
 * Codes this transaction holds in a working copy of its own (the loyalty ledger's loaded cards),
 * each read as the working copy stands: `findMemberCard` answers from them before the store.
 */
const workingCopies = new WeakMap<Tx, Map<string, () => Stored<Voucher>>>()

/** Registers a code's working copy in this transaction (the ledger calls it when it loads a card). */
export function holdWorkingCopy(tx: Tx, voucherId: string, read: () => Stored<Voucher>): void {
  let map = workingCopies.get(tx)
  if (!map) {
    map = new Map()
    workingCopies.set(tx, map)
  }
  map.set(voucherId, read)
}

/** A code of the campaign held by the customer that this transaction has a working copy of, if any. */
function loadedCard(tx: Tx, campaignId: string, customerId: string): Stored<Voucher> | undefined {
  for (const read of workingCopies.get(tx)?.values() ?? []) {
    const card = read()
    if (card.value.campaign_id === campaignId && card.value.holder_id === customerId) return card
  }
  return undefined
}

/**
 * Serialises "does this customer hold a code of X yet?" decisions (join-once programs and campaigns)
 * without writing any row other requests share (docs/storage.md#shared-rows). That answer is read
 * from a list, and two concurrent requests would each write a different code, so nothing else they
 * write overlaps: call this when a new code is given, and the membership row it inserts, keyed by
 * (campaign, customer), lets only the first commit. The other one's insert conflicts, and as a claim
 * it decides again (`mutate`), finds the code and returns it. A membership row left by a code no
 * longer held (deciding again finds none) is written again at its version.
 */
export async function joinOnce(tx: Tx, campaignId: string, customerId: string): Promise<void> {
  const id = `join:${campaignId}:${customerId}`
  if (tx.writes.some((w) => w.op === 'put' && w.collection === 'locks' && w.value.id === id)) return
  // A customer this transaction creates has an id no other request knows yet, so none can give them a
  // code meanwhile (two requests creating one customer collide on its source_id first): a new
  // customer's first card, such as an auto-join enrolment's, needs no membership row.
  if (createdHere(tx, customerId)) return
  tx.claim('locks', id)
  const stored = tx.redeciding ? await tx.store.locks.get(id) : undefined
  if (stored) tx.update('locks', stored, { ...stored.value, updated_at: tx.nowIso })
  else tx.insert('locks', { id, updated_at: tx.nowIso })
}

/**
 * Whether it is known without a read that the customer holds no code of the campaign: this
 * transaction creates them (the store holds no code of theirs) and has given them none.
 */
export function holdsNoCodeKnown(tx: Tx, campaignId: string, customerId: string): boolean {
  if (!createdHere(tx, customerId) || loadedCard(tx, campaignId, customerId)) return false
  return !tx.writes.some(
    (w) =>
      w.op === 'put' &&
      w.collection === 'vouchers' &&
      (w.value as Voucher).campaign_id === campaignId &&
      (w.value as Voucher).holder_id === customerId,
  )
}

/** Whether this transaction creates the customer: a fresh id, which nothing stored refers to yet. */
function createdHere(tx: Tx, customerId: string): boolean {
  return tx.writes.some(
    (w) => w.op === 'put' && w.collection === 'customers' && w.expectedVersion === null && w.value.id === customerId,
  )
}

/**
 * The code of a campaign the customer holds (a loyalty card, a join_once coupon): one this
 * transaction gave them, else the stored one, the oldest first.
 */
export async function findMemberCard(
  tx: Tx,
  campaignId: string,
  customerId: string,
): Promise<Stored<Voucher> | undefined> {
  for (const w of tx.writes) {
    if (w.op !== 'put' || w.collection !== 'vouchers') continue
    const v = w.value as Voucher
    if (v.campaign_id === campaignId && v.holder_id === customerId) return { value: v, version: w.expectedVersion ?? 0 }
  }
  const loaded = loadedCard(tx, campaignId, customerId)
  if (loaded) return loaded
  // The store holds no code of a customer this transaction creates.
  if (createdHere(tx, customerId)) return undefined
  let byHolder = held.get(tx.reads)
  if (!byHolder) {
    byHolder = new Map()
    held.set(tx.reads, byHolder)
  }
  const key = `${campaignId}|${customerId}`
  let found = byHolder.get(key)
  if (!found) {
    // Read once per transaction: the loyalty cascade asks early (prefetch) and again when it writes.
    found = tx.store.vouchers
      .list({
        where: { campaign_id: campaignId, holder_id: customerId },
        order: { field: 'created_at', direction: 'asc' },
        limit: 1,
        count: false,
      })
      .then((page) => page.data[0])
    byHolder.set(key, startEarly(found))
  }
  const stored = await found
  return (stored && loadedCard(tx, campaignId, customerId)) ?? stored
}

/** Plain reads, shared by an attempt and its forks (`Tx.reads`). */
const held = new WeakMap<object, Map<string, Promise<Stored<Voucher> | undefined>>>()
