import type { Customer } from '../../model/customer'
import type { OrderItemInput } from '../../model/order'
import type { CounterScope } from '../../rules/counters'
import type { StackableRequest } from '../../schema/stackable'
import type { Counter, Store, Stored } from '../../storage/ports'
import { startEarly } from '../kernel/early-reads'
import { type LoadHints, remember } from '../kernel/load-hints'
import type { Context } from '../kernel/unit-of-work'
import {
  type Catalogue,
  type CatalogueReads,
  catalogueReads,
  needsCatalogId,
  needsCatalogIds,
  readCatalogue,
  sameCatalogueReads,
} from './catalogue'
import {
  type ExpandedRequest,
  type Found,
  readSubjects,
  type SubjectAnswers,
  type SubjectReads,
  sameIds,
  samePlan,
  subjectReads,
} from './load-subjects'
import { counterRowIds, readCounters } from './redemption-counters'
import type { LoadedLocks } from './session-locks'

/*
 * Level 2 of a validation's or redemption's reads (docs/storage.md#load-decide-commit): planned from
 * what level 1 found, and started early from the hints of earlier requests when every code, tier and
 * line is remembered (docs/postgres.md#loads). The early answers are used only when level 1's answers
 * make the same plan.
 */

/**
 * The keys of level 2, from what level 1 found (docs/storage.md#load-decide-commit): the same found
 * values, customer id, lines and own locks give the same plan, and equal plans make the same reads.
 */
export interface Level2Plan {
  subjects: SubjectReads
  /** The counter rows read with the rest; none for a qualification, whose budget rules are known later. */
  counters: string[] | undefined
  catalogue: CatalogueReads
  customerId: string | undefined
}

export interface Level2Answers {
  subjects: SubjectAnswers
  counters: Map<string, Counter> | undefined
  catalogue: Catalogue
  tiers: string[]
}

export function level2Plan(
  requests: readonly ExpandedRequest[],
  found: readonly Found[],
  customerId: string | undefined,
  items: readonly OrderItemInput[],
  locks: LoadedLocks,
  scopes: readonly (CounterScope | null)[] | undefined,
): Level2Plan {
  return {
    subjects: subjectReads(requests, found, locks),
    counters: scopes ? counterRowIds(scopes.filter((scope) => scope !== null)) : undefined,
    catalogue: catalogueReads(
      items,
      found.map((f) => f.tier?.value.action.discount ?? f.voucher?.value.discount),
    ),
    customerId,
  }
}

export function samePlans(a: Level2Plan, b: Level2Plan): boolean {
  return (
    a.customerId === b.customerId &&
    (a.counters === undefined || b.counters === undefined
      ? a.counters === b.counters
      : sameIds(a.counters, b.counters)) &&
    samePlan(a.subjects, b.subjects) &&
    sameCatalogueReads(a.catalogue, b.catalogue)
  )
}

/** Level 2's reads, started together. */
export async function readLevel2(
  ctx: Context,
  plan: Level2Plan,
  now: Date,
  sessionKey: string | undefined,
): Promise<Level2Answers> {
  const { store } = ctx
  const read = await Promise.all([
    readSubjects(store, plan.subjects, now, sessionKey, ctx.hints.capacity > 0 ? ctx.hints : undefined),
    plan.counters ? readCounters(store, plan.counters) : undefined,
    readCatalogue(store, plan.catalogue),
    plan.customerId ? customerTiers(store, plan.customerId) : Promise.resolve([]),
  ])
  return { subjects: read[0], counters: read[1], catalogue: read[2], tiers: read[3] }
}

/** No locks: a plan made before level 1 has read the session's own. */
const NO_LOCKS: LoadedLocks = { own: new Map(), expired: new Map() }

/**
 * Level 2 started from what level 1 found last time for the same codes, tiers, lines and customer
 * (docs/postgres.md#loads), when the codes, tiers and lines are remembered.
 * The plan made from the hints is kept, to be compared with the one level 1's answers make.
 */
export function startFromHints(
  ctx: Context,
  requests: readonly ExpandedRequest[],
  customerInput: StackableRequest['customer'],
  items: readonly OrderItemInput[],
  now: Date,
  options: { sessionKey: string | undefined },
): { plan: Level2Plan; answers: Promise<Level2Answers> } | undefined {
  const { hints } = ctx
  if (hints.capacity === 0) return undefined
  const lines = needsCatalogIds(items) ? hintedLines(hints, items) : items
  if (lines === undefined) return undefined
  const found: Found[] = []
  for (const r of requests) {
    const f = hints.redeemables.get(redeemableKey(r))
    if (f === undefined) return undefined
    found.push(f)
  }
  // A customer not remembered is planned as new, the open loop's usual case (a first request): level
  // 1 finding them stored makes another plan, and level 2 is then read after it, as without hints.
  const key = customerKey(customerInput)
  const customerId = key === undefined ? undefined : hints.customers.get(key)
  const scopes = found.map((f) => counterScopeOf(f, customerId))
  const plan = level2Plan(requests, found, customerId, lines, NO_LOCKS, scopes)
  return { plan, answers: startEarly(readLevel2(ctx, plan, now, options.sessionKey)) }
}

/** The lines with the catalogue ids their `source_id`s resolved to last time; undefined when one is not remembered. */
function hintedLines(hints: LoadHints, items: readonly OrderItemInput[]): OrderItemInput[] | undefined {
  const out: OrderItemInput[] = []
  for (const item of items) {
    if (!needsCatalogId(item)) {
      out.push(item)
      continue
    }
    const ids = hints.lines.get(lineKey(item))
    if (ids === undefined) return undefined
    out.push({
      ...item,
      ...(ids.product_id ? { product_id: ids.product_id } : {}),
      ...(ids.sku_id ? { sku_id: ids.sku_id } : {}),
    })
  }
  return out
}

/** What names a line's product or SKU: the fields `withCatalogIds` resolves it from. */
function lineKey(item: OrderItemInput): string {
  return `${item.related_object ?? ''} ${item.source_id ?? ''} ${item.sku_id ?? ''} ${item.product_id ?? ''}`
}

/** What level 1 found, kept as hints for the next request naming the same (and what it did not find, forgotten). */
export function rememberLevel1(
  hints: LoadHints,
  requests: readonly ExpandedRequest[],
  found: readonly Found[],
  customerInput: StackableRequest['customer'],
  customer: Stored<Customer> | undefined,
  lines: readonly OrderItemInput[],
  items: readonly OrderItemInput[],
): void {
  for (let i = 0; i < requests.length; i++) {
    const key = redeemableKey(requests[i] as ExpandedRequest)
    const f = found[i]
    if (f?.voucher || f?.tier) remember(hints.redeemables, key, f, hints.capacity)
    else hints.redeemables.delete(key)
  }
  const key = customerKey(customerInput)
  if (key !== undefined) {
    if (customer) remember(hints.customers, key, customer.value.id, hints.capacity)
    else hints.customers.delete(key)
  }
  // `withCatalogIds` maps the lines one to one.
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as OrderItemInput
    const resolved = items[i]
    if (resolved && needsCatalogId(line))
      remember(
        hints.lines,
        lineKey(line),
        { product_id: resolved.product_id ?? null, sku_id: resolved.sku_id ?? null },
        hints.capacity,
      )
  }
}

function redeemableKey(r: ExpandedRequest): string {
  return `${r.object}:${r.id}`
}

/** The customer as `findRequestCustomer` looks for it: by `id` (or source_id) when given, else by `source_id`. */
function customerKey(input: StackableRequest['customer']): string | undefined {
  if (!input) return undefined
  if (input.id) return `id:${input.id}`
  return input.source_id ? `source_id:${input.source_id}` : undefined
}

export function counterScopeOf(found: Found, customerId: string | undefined): CounterScope | null {
  const redeemableId = found.tier?.value.id ?? found.voucher?.value.id
  if (redeemableId === undefined) return null
  return {
    redeemableId,
    campaignId: found.tier?.value.campaign_id ?? found.voucher?.value.campaign_id ?? null,
    customerId: customerId ?? null,
  }
}

async function customerTiers(store: Store, customerId: string): Promise<string[]> {
  const standings = await store.member_tiers.list({ where: { customer_id: customerId }, count: false })
  return standings.data.flatMap((s) => (s.value.tier_id ? [s.value.tier_id] : []))
}
