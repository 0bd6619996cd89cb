import type { CollectionName } from '../../storage/ports'
import {
  dropNullOptionals,
  keepOrderCopy,
  upgradeAsyncAction,
  upgradeGiftVoucher,
  upgradeRedemption,
} from './shape-upgrades'

/*
 * Stored shape versions (docs/storage.md#shape-versions). Every stored entity carries the shape
 * version of the code that wrote it; reading an older one upgrades it here, in one function per
 * collection, so operations only ever see the current shape. A change to what a collection stores
 * bumps its version below and adds the step from the previous one.
 */

type Upgrade = (value: Record<string, unknown>) => Record<string, unknown>

const as = (f: (value: never) => unknown): Upgrade => f as unknown as Upgrade

/**
 * Per collection: the step from shape n to n + 1, at index n - 1. Collections not listed are at shape 1.
 * Shape 2 (docs/behaviour.md#matching-the-hosted-service): hosted async action types and `progress`;
 * a redemption's related redemptions as `{id, date}`; optional objects omitted rather than `null`.
 * Files gained `status` and `expires_at` (a file of shape 1 was written whole: `READY`, kept).
 * (A member's tier dates became calendar dates too; that upgrade needs the engine's time zone and is
 * applied where standings are read, `src/operations/loyalty/member-tiers.ts`.)
 * Redemptions shape 3, rollbacks shape 2 (docs/storage.md#what-a-redemption-stores): a record refers
 * to its stored order instead of copying it; older records keep their copies.
 */
const UPGRADES: { [C in CollectionName]?: readonly Upgrade[] } = {
  async_actions: [as(upgradeAsyncAction)],
  redemptions: [as(upgradeRedemption), keepOrderCopy],
  redemption_rollbacks: [keepOrderCopy],
  campaigns: [(v) => dropNullOptionals('campaigns', v)],
  earning_rules: [(v) => dropNullOptionals('earning_rules', v)],
  loyalty_tiers: [(v) => dropNullOptionals('loyalty_tiers', v)],
  validation_rules: [(v) => dropNullOptionals('validation_rules', v)],
  // Shape 2: files written over several commits have a status, and may expire (docs/http.md).
  files: [(v) => ({ status: 'READY', expires_at: null, ...v })],
  // Shape 2: a gift card's spent credits leave `subtracted_amount` (docs/behaviour.md#gift-card-balance).
  vouchers: [as(upgradeGiftVoucher)],
}

/** The shape version a collection's entities are written in today. */
export function currentShape(collection: CollectionName): number {
  return (UPGRADES[collection]?.length ?? 0) + 1
}

/** The value in the current shape: `value` itself when it is current (no copy). */
export function upgradeShape(collection: CollectionName, value: unknown, shape: number): unknown {
  const steps = UPGRADES[collection]
  if (!steps || shape > steps.length) return value
  let next = value as Record<string, unknown>
  for (let i = shape - 1; i < steps.length; i++) next = (steps[i] as Upgrade)(next)
  return next
}

/** For tests of an upgrade path: registers steps for a collection (replacing any), returns an undo. */
export function registerShapeUpgrades(collection: CollectionName, steps: readonly Upgrade[]): () => void {
  const before = UPGRADES[collection]
  UPGRADES[collection] = steps
  return () => {
    if (before === undefined) delete UPGRADES[collection]
    else UPGRADES[collection] = before
  }
}
