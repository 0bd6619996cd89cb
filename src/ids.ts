import { randomFillSync } from 'node:crypto'
import type { IdGenerator, RandomSource } from './storage/ports'

/** The characters of the engine's ids after their prefix. */
export const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** The prefixes of the hosted service's ids, by resource. */
export const ID_PREFIX = {
  campaign: 'camp_',
  voucher: 'v_',
  promotion_tier: 'promo_',
  promotion_stack: 'stack_',
  customer: 'cust_',
  product: 'prod_',
  sku: 'sku_',
  category: 'cat_',
  validation_rule: 'val_',
  validation_rule_assignment: 'asgm_',
  earning_rule: 'ern_',
  loyalty_tier: 'ltr_',
  reward: 'rew_',
  reward_assignment: 'rewa_',
  redemption: 'r_',
  redemption_failed: 'rf_',
  redemption_rollback: 'rr_',
  redemption_rollback_failed: 'rrf_',
  order: 'ord_',
  session: 'ssn_',
  export: 'exp_',
  async_action: 'aa_',
  validation: 'valid_',
  publication: 'pub_',
  event: 'evcus_',
  activity: 'evact_',
  metadata_schema: 'ms_',
  products_collection: 'pc_',
  campaign_template: 'camptpl_',
  redeemable_holder: 'rh_',
  file: 'file_',
  points_bucket: 'lpb_',
  card_transaction: 'vtx_',
  member_tier: 'mtr_',
  credential: 'app_',
  token: 'tok_',
  stacking_rules: 'str_',
  qr: 'qr_',
  barcode: 'bc_',
} as const

/** Ids like the hosted service's: a prefix and 24 base-62 characters from the given random source. */
export function createIdGenerator(random: RandomSource = systemRandom, length = 24): IdGenerator {
  // The default is one function for every engine of a process: code optimised around one engine's
  // ids stays valid for the next engine's (docs/design.md#one-function-per-process).
  if (random === systemRandom && length === 24) return systemIds
  return (prefix) => prefix + randomString(random, length, ALPHABET)
}

export function randomString(random: RandomSource, length: number, charset: string): string {
  let out = ''
  for (let i = 0; i < length; i++) out += charset[Math.floor(random() * charset.length)] ?? ''
  return out
}

/** A small, fast, seedable generator (mulberry32): the same seed gives the same ids and codes. */
export function seededRandom(seed: number): RandomSource {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/**
 * Randomness drawn in blocks of `size` 32-bit values, each block filled by one call of `fill`. A call
 * into the CSPRNG per character of an id cost a third of a redemption (docs/behaviour.md#ids-and-codes).
 */
export function blockRandom(fill: (block: Uint32Array) => void, size = 4096): RandomSource {
  const block = new Uint32Array(size)
  let drawn = size
  return () => {
    if (drawn === size) {
      fill(block)
      drawn = 0
    }
    return (block[drawn++] as number) / 4294967296
  }
}

/** Cryptographic randomness: unguessable codes and ids by default, 16 KiB (about 170 ids) per call into the CSPRNG. */
export const systemRandom: RandomSource = blockRandom((block) => randomFillSync(block))

const systemIds: IdGenerator = (prefix) => prefix + randomString(systemRandom, 24, ALPHABET)
