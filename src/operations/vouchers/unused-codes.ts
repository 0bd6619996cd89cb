import { EngineError } from '../../errors'
import type { Campaign, CodeConfig } from '../../model/campaign'
import type { Voucher } from '../../model/voucher'
import { codeSpace, generateUniqueCodes } from '../../rules/codes'
import type { Tx } from '../kernel/unit-of-work'
import { type CodeCounts, checkCodeSpace } from './code-counts'

/** Rounds of "draw, then look the batch up in the store" before giving up on a crowded code space. */
const LOOKUP_ROUNDS = 10

/**
 * A code space this large is drawn from without asking the store first: a random code then meets a
 * stored one about once in a billion draws per thousand codes stored, and that rare collision fails the
 * commit's unique check on the new voucher, which the operation claims (`Tx.claim`), so it decides
 * again, and then looks its codes up. An auto-join enrolment so saves a round trip.
 */
export const UNCHECKED_SPACE = 2 ** 40

/**
 * `count` codes no voucher of the project uses. The pure generator keeps a batch unique within itself
 * and away from codes known to be taken; the store is then asked about the candidates in one read,
 * and any that turn out taken are replaced in another round. The store's unique index on `code` still guards the
 * commit against a concurrent writer (the operation then retries with fresh codes).
 */
export async function generateUnusedCodes(tx: Tx, config: CodeConfig, count: number, path: string): Promise<string[]> {
  const taken = new Set<string>()
  for (const w of tx.writes) if (w.op === 'put' && w.collection === 'vouchers') taken.add((w.value as Voucher).code)
  const accepted: string[] = []
  const acceptedSet = new Set<string>()
  for (let round = 0; round < LOOKUP_ROUNDS && accepted.length < count; round++) {
    const batch = generateUniqueCodes(
      config,
      count - accepted.length,
      tx.ctx.random,
      (code) => taken.has(code) || acceptedSet.has(code),
      path,
    )
    // Inside a host's transaction a collision would be the host's 409 to retry, not a claim: looked up.
    if (!tx.redeciding && tx.ctx.store.hostTransaction !== true && codeSpace(config, path) >= UNCHECKED_SPACE) {
      for (const code of batch) accepted.push(code)
      break
    }
    // The round's candidates looked up in one read (one level however many codes are drawn).
    const found = new Set((await tx.store.vouchers.findMany('code', batch)).map((s) => s.value.code))
    for (const code of batch) {
      if (found.has(code)) {
        taken.add(code)
      } else {
        accepted.push(code)
        acceptedSet.add(code)
      }
    }
  }
  if (accepted.length < count) {
    throw EngineError.invalid(
      path,
      `could find only ${accepted.length} of ${count} unused codes: most codes of this config are taken; use a longer pattern or a larger charset`,
    )
  }
  return accepted
}

/**
 * `count` codes a campaign makes on demand, and the check of its pattern's room (`checkCodeSpace`),
 * read in one level where both read (deciding again; a pattern under `UNCHECKED_SPACE` looks its
 * codes up on every decision, the check only then). The check's business error comes first, as when
 * it ran alone before the draw; the codes are returned, not written, so nothing is made when it fails.
 */
export async function codesOnDemand(
  tx: Tx,
  campaign: Campaign,
  count: number,
  path: string,
): Promise<{ counts: CodeCounts | undefined; codes: string[] }> {
  const counts = checkCodeSpace(tx, campaign, count, path)
  const codes = generateUnusedCodes(tx, campaign.voucher?.code_config ?? {}, count, path)
  await Promise.allSettled([counts, codes])
  return { counts: await counts, codes: await codes }
}
