import type { CallOptions } from '../../call-options'
import { ID_PREFIX } from '../../ids'
import {
  decideRedeemables,
  type ExpandOption,
  type PipelineResult,
  type ValidationResult,
  validationResult,
} from '../../rules/redeemables'
import type { ValidationsValidateStackableParams } from '../../schema/requests'
import { parseStackableRequest } from '../../schema/stackable'
import { offerAlternatives } from '../kernel/guard-alternatives'
import { type Context, mutate, type Tx } from '../kernel/unit-of-work'
import { trackingId } from '../shop/tracking-id'
import { loadRequest } from './load-request'
import { redecision } from './redecide-on-guard'
import { lockSession, type SessionResult } from './session-locks'

/**
 * `POST /v1/validations` and `POST /client/v1/validations` (the bodies and results are identical):
 * parse → read → decide (pure) → lock the session when asked → one commit.
 * Validation changes nothing else: the only writes are a requested session lock and the customer's
 * `customer.validation.succeeded|failed` activity.
 */
export function validations(ctx: Context) {
  return {
    async validateStackable(
      body: ValidationsValidateStackableParams,
      _options?: CallOptions,
    ): Promise<ValidationResult> {
      const request = parseStackableRequest(body)
      return mutate(ctx, async (tx) => {
        const loaded = await loadRequest(ctx, request, tx.now, { sessionKey: request.session?.key })
        const decision = decideRedeemables(loaded.input)
        const expand = new Set<ExpandOption>(request.options?.expand ?? [])
        /** The validation's writes (its locks, its activity) for a decision; the result is built from them. */
        const write = (t: Tx, d: PipelineResult): Written => {
          const session = request.session ? lockSession(t, request.session, loaded, d) : undefined
          const id = t.id(ID_PREFIX.validation)
          const valid = build({ id, session }, d)
          t.emit(
            valid.valid ? 'customer.validation.succeeded' : 'customer.validation.failed',
            loaded.customer?.value.id,
            {
              validation: {
                id,
                valid: valid.valid,
                redeemables: valid.redeemables.map((r) => ({ id: r.id, object: r.object, status: r.status })),
              },
            },
          )
          return { id, session, decision: d, result: valid }
        }
        const build = (w: Pick<Written, 'id' | 'session'>, d: PipelineResult) =>
          validationResult({
            id: w.id,
            decision: d,
            subjects: loaded.input.subjects,
            rules: loaded.rules,
            expand,
            trackingId: trackingId(loaded.customer?.value, request),
            ...(w.session ? { session: w.session } : {}),
          })
        const result = (w: Written, d: PipelineResult) => (d === w.decision ? w.result : build(w, d))
        // A lock refused by its guard (the quantity taken meanwhile) is answered in the same commit by
        // the validation deciding again would record (docs/storage.md#alternatives).
        if (request.session) {
          offerAlternatives(tx, { ...redecision(loaded, tx), fails: (d) => d.redeem.length === 0, write, result })
        }
        return write(tx, decision).result
      })
    },
  }
}

/** What a validation wrote, and the result it answers with. */
interface Written {
  id: string
  session: SessionResult | undefined
  decision: PipelineResult
  result: ValidationResult
}
