import type { CallOptions } from '../../call-options'
import { ID_PREFIX } from '../../ids'
import { decideRedeemables, type ExpandOption, type ValidationResult, validationResult } from '../../rules/redeemables'
import type { ValidationsValidateStackableParams } from '../../schema/requests'
import { parseStackableRequest } from '../../schema/stackable'
import { type Context, mutate } from '../kernel/unit-of-work'
import { trackingId } from '../shop/tracking-id'
import { loadRequest } from './load-request'
import { lockSession } from './session-locks'

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
        const session = request.session ? await lockSession(tx, request.session, loaded, decision) : undefined
        const result = validationResult({
          id: tx.id(ID_PREFIX.validation),
          decision,
          subjects: loaded.input.subjects,
          rules: loaded.rules,
          expand: new Set<ExpandOption>(request.options?.expand ?? []),
          trackingId: trackingId(loaded.customer?.value, request),
          ...(session ? { session } : {}),
        })
        tx.emit(
          result.valid ? 'customer.validation.succeeded' : 'customer.validation.failed',
          loaded.customer?.value.id,
          {
            validation: {
              id: result.id,
              valid: result.valid,
              redeemables: result.redeemables.map((r) => ({ id: r.id, object: r.object, status: r.status })),
            },
          },
        )
        return result
      })
    },
  }
}
