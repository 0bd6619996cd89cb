import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { fingerprint } from '../../formats/canonical-json'
import type { IdempotencyRecord } from '../../model/idempotency'
import { parse } from '../../schema/parse'
import * as v from '../../schema/valibot'
import { type Context, mutate, type Tx } from './unit-of-work'

/** What a result leaves in the idempotency record: ids to re-read, a status, what no entity holds. */
export interface ResultReference {
  ids: string[]
  status?: string | null
  extra?: unknown
}

/** How one unsafe operation remembers its result and rebuilds it on a replay. */
export interface IdempotentCall<R> {
  /** The operation's name in the operation table: a key is scoped to it. */
  operation: string
  /** The parsed input, path parameters included: the same key with another input is refused. */
  input: unknown
  reference(result: R): ResultReference
  /** Rebuilds the first call's response from the record, reading only. */
  replay(record: IdempotencyRecord): Promise<R>
}

const idempotencyKey = v.pipe(
  v.string(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(255, 'must be at most 255 characters'),
  v.regex(/^[\x21-\x7e]+$/, 'must be printable ASCII without spaces'),
)

/**
 * Runs an unsafe operation's attempt under an idempotency key (when the call has one). The record is
 * inserted in the attempt's own changeset, so it commits with the effect or not at all: a retry after
 * a lost response, or a concurrent call with the same key (whose insert conflicts and re-reads), finds
 * it and gets the first result rebuilt, changing nothing. The same key with a different input is a 422
 * `idempotency_key_reused`; an expired record is replaced. Scope: project + operation + key (a host
 * adds the application to the key, as `promo-engine/http` does).
 */
export async function withIdempotency<R>(
  ctx: Context,
  options: CallOptions | undefined,
  call: IdempotentCall<R>,
  attempt: (tx: Tx) => Promise<R>,
): Promise<R> {
  if (options?.idempotencyKey === undefined) return mutate(ctx, attempt)
  const key = parse(idempotencyKey, options.idempotencyKey, 'idempotencyKey')
  const id = `idem_${fingerprint([ctx.config.projectId, call.operation, key])}`
  const inputPrint = fingerprint(call.input)
  let earlier: IdempotencyRecord | undefined
  const result = await mutate(ctx, async (tx) => {
    earlier = undefined
    const found = await tx.store.idempotency_keys.get(id)
    if (found && Date.parse(found.value.expires_at) > tx.now.getTime()) {
      if (found.value.fingerprint !== inputPrint) throw reused(call.operation)
      earlier = found.value
      return undefined
    }
    // The record goes with whatever this attempt commits: its writes, or an alternative (docs/storage.md#alternatives).
    const remember = (into: Tx, r: R) => {
      const ref = call.reference(r)
      const record: IdempotencyRecord = {
        id,
        operation: call.operation,
        fingerprint: inputPrint,
        result_ids: ref.ids,
        result_status: ref.status ?? null,
        result_extra: ref.extra ?? null,
        created_at: into.nowIso,
        expires_at: new Date(into.now.getTime() + ctx.config.idempotencyTtlSeconds * 1000).toISOString(),
      }
      if (found) into.update('idempotency_keys', found, record)
      else into.insert('idempotency_keys', record)
    }
    tx.finishers.push(remember as (into: Tx, r: unknown) => void)
    const r = await attempt(tx)
    remember(tx, r)
    return r
  })
  return earlier ? call.replay(earlier) : (result as R)
}

function reused(operation: string): EngineError {
  return new EngineError({
    code: 422,
    key: 'idempotency_key_reused',
    message: 'Idempotency key reused',
    details: `This idempotency key was used for ${operation} with a different input; use a new key for a new request`,
    path: 'Idempotency-Key',
  })
}
