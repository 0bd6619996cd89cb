import type { CallOptions } from '../../call-options'
import { ID_PREFIX } from '../../ids'
import type { Redemption } from '../../model/redemption'
import { isRebuilt, type RolledBackPoints, rebuildCardTransactions } from '../../rules/card-history'
import { legacyPeriodRow, periodFields, staleFields } from '../../rules/counters'
import { BACKFILLED, historyRow, summaryRowId } from '../../rules/customer-summary'
import { hasUnitBudget, targetingOf, unitScopeOf, unitsTaken } from '../../rules/redeemables'
import { nonEmptyString, opt } from '../../schema/common'
import { parse } from '../../schema/parse'
import type { MaintenanceBackfillParams } from '../../schema/requests'
import * as v from '../../schema/valibot'
import type { CollectionName, Entity, Repository, Stored, StoredRow } from '../../storage/ports'
import { loadCollections } from '../checkout/catalogue'
import { type ExpandedRequest, type Found, loadSubjects } from '../checkout/load-subjects'
import { isUnlimitedCoupon } from '../checkout/redemption-counters'
import { countLocks } from '../checkout/session-locks'
import { listAll } from '../kernel/list-all'
import { type Context, mutate, type Tx } from '../kernel/unit-of-work'
import { withOrders } from '../shop/order-records'

/*
 * The backfills a host runs once after an upgrade (docs/http.md#housekeeping): each fills, a page of
 * one collection per call, what an earlier release did not store (customer summaries, counted session
 * locks, unit budget rows, card transactions) or folds what it stored differently (period counters).
 */

export const backfillInput = v.object({
  /** Rows per call (one commit): 1 to 1,000, 100 by default. */
  limit: opt(v.pipe(v.number(), v.integer('must be an integer'), v.minValue(1), v.maxValue(1000))),
  /** Resume after this id (the previous call's `next_starting_after`). */
  starting_after: opt(nonEmptyString),
})

/**
 * What one call of `maintenance.backfillCustomerSummaries` (`backfillSessionLocks`, `backfillUnitBudgets`,
 * `backfillCardTransactions`, `foldPeriodCounters`) did, and where the next starts.
 */
export interface BackfillSummary {
  /**
   * Customers whose summary row this call computed from their stored history (or locks or redemptions
   * it counted, or loyalty cards given their rebuilt transactions, or period counter rows folded).
   */
  filled: number
  /** Rows of the page already filled, or with nothing to count (left as they are). */
  skipped: number
  /** Pass as `starting_after` to continue; null once every row was seen. */
  next_starting_after: string | null
}

/**
 * One call of a resumable backfill: a page of `collection` by id after `starting_after`, one commit.
 * `fill` writes what the page's rows need, each marked at the version read so that a row moved
 * meanwhile conflicts and the page is read again, and returns how many it filled; the rest of the
 * page is skipped.
 */
function backfillPage<C extends CollectionName>(
  ctx: Context,
  collection: C,
  input: MaintenanceBackfillParams,
  fill: (tx: Tx, rows: readonly StoredRow<Entity<C>>[]) => Promise<number>,
): Promise<BackfillSummary> {
  const q = parse(backfillInput, input)
  return mutate(ctx, async (tx) => {
    // Indexing the store by a generic collection name gives the union of all repositories.
    const repository = tx.store[collection] as unknown as Repository<C>
    const page = await repository.list({
      order: { field: 'id', direction: 'asc' },
      limit: q.limit ?? 100,
      count: false,
      ...(q.starting_after === undefined ? {} : { starting_after_id: q.starting_after }),
    })
    const filled = await fill(tx, page.data)
    return {
      filled,
      skipped: page.data.length - filled,
      next_starting_after: page.has_more ? (page.data.at(-1)?.value.id ?? null) : null,
    }
  })
}

/** The resumable backfills of `maintenance`, each one page and one commit per call. */
export function backfills(ctx: Context) {
  return {
    /**
     * Fills the `summary` of customers stored before summaries were kept (docs/behaviour.md#customer-summary):
     * a page of customers by id per call, one commit. A customer whose summary row is not marked
     * filled gets it computed from its stored orders, redemptions and rollbacks, written at the
     * version of the row read before the history: a redemption or order counted meanwhile moves that
     * version, so the commit conflicts and the page is computed again, never counted twice. Resumable:
     * call again with `next_starting_after`; a page run twice skips what it filled.
     */
    async backfillCustomerSummaries(
      input: MaintenanceBackfillParams = {},
      _options?: CallOptions,
    ): Promise<BackfillSummary> {
      return backfillPage(ctx, 'customers', input, async (tx, page) => {
        const ids = page.map((c) => c.value.id)
        // The rows first: the history read after them includes everything their versions counted.
        const rows = new Map((await tx.store.counters.getMany(ids.map(summaryRowId))).map((r) => [r.value.id, r]))
        const todo = ids.filter((id) => rows.get(summaryRowId(id))?.value[BACKFILLED] !== 1)
        const histories = await Promise.all(
          todo.map((id) => {
            const byCustomer = { where: { customer_id: id } }
            return Promise.all([
              listAll(tx.store, 'orders', { ...byCustomer, order: { field: 'created_at', direction: 'asc' } }),
              listAll(tx.store, 'redemptions', { ...byCustomer, order: { field: 'date', direction: 'asc' } }),
              listAll(tx.store, 'redemption_rollbacks', { ...byCustomer, order: { field: 'date', direction: 'asc' } }),
            ])
          }),
        )
        for (const [i, id] of todo.entries()) {
          const [orders, redemptions, rollbacks] = histories[i] as [
            Entity<'orders'>[],
            Entity<'redemptions'>[],
            Entity<'redemption_rollbacks'>[],
          ]
          const value = { id: summaryRowId(id), ...historyRow(orders, redemptions, rollbacks) }
          const stored = rows.get(value.id)
          if (stored) tx.update('counters', stored, value)
          else tx.insert('counters', value)
        }
        return todo.length
      })
    },

    /**
     * Counts the live session locks stored before codes counted them (docs/storage.md#session-locks):
     * a page of lock rows by id per call, one commit. A live lock not yet counted is marked counted at
     * the version read and its code's `session_locks` incremented in the same commit, so a lock
     * released or rewritten meanwhile conflicts and the page is read again, never counted twice.
     * Released, expired and already counted locks, and locks of unlimited coupons, are skipped.
     * Resumable: call again with `next_starting_after` (a lock id).
     */
    async backfillSessionLocks(
      input: MaintenanceBackfillParams = {},
      _options?: CallOptions,
    ): Promise<BackfillSummary> {
      return backfillPage(ctx, 'sessions', input, async (tx, page) => {
        const live = page.filter(
          (s) =>
            s.value.counted !== true &&
            s.value.released_at === null &&
            s.value.voucher_id !== null &&
            Date.parse(s.value.expires_at) > tx.now.getTime(),
        )
        const codes = new Map(
          (await tx.store.vouchers.getMany([...new Set(live.map((s) => s.value.voucher_id as string))])).map((v) => [
            v.value.id,
            v.value,
          ]),
        )
        const todo = live.filter((s) => {
          const code = codes.get(s.value.voucher_id as string)
          return code !== undefined && !isUnlimitedCoupon(code)
        })
        for (const s of todo) tx.update('sessions', s, { ...s.value, counted: true })
        countLocks(
          tx,
          todo.map((s) => ({ ...s.value, counted: true })),
        )
        return todo.length
      })
    },

    /**
     * Folds the budget counters' period rows written by releases before one row per counter
     * (docs/storage.md#counters) into their base rows: a page of counter rows by id per call, one
     * commit. A period row still current or previous at the engine's clock adds its count to the field
     * of that name of its base row; every period row is deleted at the version read, so an earlier
     * release counting in it meanwhile makes the commit conflict and the page is read again: never
     * counted twice. PostgreSQL's migration does the same (docs/postgres.md#migrations); this is for
     * other stores holding an earlier release's rows, run before the new release serves.
     */
    async foldPeriodCounters(input: MaintenanceBackfillParams = {}, _options?: CallOptions): Promise<BackfillSummary> {
      return backfillPage(ctx, 'counters', input, async (tx, page) => {
        const fields = periodFields(tx.now, ctx.config.timezone)
        let folded = 0
        for (const row of page) {
          const old = legacyPeriodRow(row.value.id)
          if (old === null) continue
          const count = row.value.count
          const current =
            typeof count === 'number' && staleFields({ id: old.base, [old.field]: count }, fields).length === 0
          if (current) tx.increment('counters', old.base, { [old.field]: count }, { create: {} })
          tx.delete('counters', row)
          folded++
        }
        return folded
      })
    },

    /**
     * Counts the units of redemptions stored before unit budgets read counter rows
     * (docs/storage.md#counters): a page of redemptions by id per call, one commit. A successful, not
     * rolled back child redemption not yet counted (no `unit_counts`) whose code or tier has unit
     * budgets gets its lines' `applied_discount_quantity` added to the rows its campaign's targeting
     * assigns them to (as a redemption counts them), and what it added kept on it, written at the
     * version read in the same commit: a rollback meanwhile conflicts and the page is read again, never
     * counted twice. Resumable: call again with `next_starting_after` (a redemption id).
     */
    async backfillUnitBudgets(input: MaintenanceBackfillParams = {}, _options?: CallOptions): Promise<BackfillSummary> {
      return backfillPage(ctx, 'redemptions', input, async (tx, page) => {
        const candidates = page.filter(
          (s) =>
            s.value.redemption != null &&
            s.value.result === 'SUCCESS' &&
            s.value.status !== 'ROLLED_BACK' &&
            s.value.unit_counts === undefined &&
            (s.value.related_object_type === 'voucher' || s.value.related_object_type === 'promotion_tier'),
        )
        return countPastUnits(ctx, tx, candidates)
      })
    },

    /**
     * Rebuilds the card transactions of loyalty cards whose points moved before card transactions were
     * recorded (docs/behaviour.md#card-transactions-made-before-the-ledger): a page of vouchers by id
     * per call, one commit; codes that are not loyalty cards are skipped. Per card the buckets are read
     * first, then its rollbacks, then its rows: a movement committed meanwhile that the bucket read saw
     * has its row in the later read, so it is never rebuilt as well. A rebuilt row's id names the bucket
     * or rollback it comes from: a card rebuilt twice at once conflicts, and the retry finds the card
     * done. Resumable: call again with `next_starting_after` (a voucher id).
     */
    async backfillCardTransactions(
      input: MaintenanceBackfillParams = {},
      _options?: CallOptions,
    ): Promise<BackfillSummary> {
      return backfillPage(ctx, 'vouchers', input, async (tx, page) => {
        const cards = page.map((v) => v.value).filter((v) => v.type === 'LOYALTY_CARD')
        const rebuilt = await Promise.all(
          cards.map(async (card) => {
            const byCard = { where: { voucher_id: card.id }, order: { field: 'created_at', direction: 'asc' } } as const
            const buckets = await listAll(tx.store, 'points_buckets', byCard)
            if (buckets.length === 0) return []
            const rollbacks = (
              await listAll(tx.store, 'redemption_rollbacks', {
                where: { related_object_id: card.id },
                order: { field: 'date', direction: 'asc' },
              })
            ).filter((rb) => rb.result === 'SUCCESS')
            const redemptions = new Map(
              (await tx.store.redemptions.getMany([...new Set(rollbacks.map((rb) => rb.redemption))])).map((r) => [
                r.value.id,
                r.value,
              ]),
            )
            const rows = await listAll(tx.store, 'card_transactions', byCard)
            if (rows.some(isRebuilt)) return []
            const rolledBack: RolledBackPoints[] = rollbacks.map((rb) => ({
              id: rb.id,
              date: rb.date,
              taken: redemptions.get(rb.redemption)?.points_taken ?? [],
            }))
            return rebuildCardTransactions(
              {
                voucher_id: card.id,
                campaign_id: card.campaign_id ?? null,
                buckets,
                rollbacks: rolledBack,
                firstRecorded: rows[0]?.created_at ?? null,
              },
              ID_PREFIX.card_transaction,
            )
          }),
        )
        for (const rows of rebuilt) for (const row of rows) tx.insert('card_transactions', row)
        return rebuilt.filter((rows) => rows.length > 0).length
      })
    },
  }
}

/**
 * Counts past child redemptions in their unit budget rows (`maintenance.backfillUnitBudgets`): their
 * codes and tiers are loaded as a request loads them (rules, campaign, collections), their lines
 * counted for the entries the current targeting assigns them to. Returns how many were counted.
 */
async function countPastUnits(ctx: Context, tx: Tx, rows: readonly Stored<Redemption>[]): Promise<number> {
  if (rows.length === 0) return 0
  const requests = rows.map(
    (r): ExpandedRequest =>
      r.value.related_object_type === 'voucher'
        ? { object: 'voucher', id: r.value.related_object_id }
        : { object: 'promotion_tier', id: r.value.related_object_id },
  )
  const voucherIds = requests.filter((r) => r.object === 'voucher').map((r) => r.id)
  const tierIds = requests.filter((r) => r.object === 'promotion_tier').map((r) => r.id)
  const [vouchers, tiers, withOrder] = await Promise.all([
    voucherIds.length > 0 ? tx.store.vouchers.getMany([...new Set(voucherIds)]) : [],
    tierIds.length > 0 ? tx.store.promotion_tiers.getMany([...new Set(tierIds)]) : [],
    withOrders(
      tx.store,
      rows.map((r) => r.value),
    ),
  ])
  const voucherById = new Map(vouchers.map((v) => [v.value.id, v]))
  const tierById = new Map(tiers.map((t) => [t.value.id, t]))
  const found: Found[] = requests.map((r) => {
    const voucher = r.object === 'voucher' ? voucherById.get(r.id) : undefined
    const tier = r.object === 'promotion_tier' ? tierById.get(r.id) : undefined
    return voucher ? { voucher } : tier ? { tier } : {}
  })
  const subjects = await loadSubjects(ctx, requests, found, tx.now, undefined, {
    vouchers: new Map(),
    tiers: new Map(),
    extras: undefined,
    locks: { own: new Map(), expired: new Map() },
  })
  const collections = await loadCollections(tx.store, subjects)
  let filled = 0
  for (const [i, stored] of rows.entries()) {
    const subject = subjects[i]
    const included = subject ? (targetingOf(subject)?.included ?? []) : []
    if (!subject || !included.some(hasUnitBudget)) continue
    const scope = unitScopeOf(subject, stored.value.customer_id)
    if (scope === null) continue
    const taken = unitsTaken(included, scope, withOrder[i]?.order?.items ?? [], collections)
    for (const [id, units] of taken) tx.increment('counters', id, { count: units }, { create: {} })
    tx.update('redemptions', stored, { ...stored.value, unit_counts: Object.fromEntries(taken) })
    filled++
  }
  return filled
}
