import { EngineError } from '../errors'
import { metadata, money, nonNegativeInt, opt } from './common'
import { customerInput } from './customer'
import { orderInput } from './order'
import { parse } from './parse'
import * as v from './valibot'

const redeemable = v.variant('object', [
  v.object({
    object: v.literal('voucher'),
    id: v.pipe(v.string(), v.minLength(1, 'must not be empty')),
    gift: opt(v.object({ credits: opt(money) })),
    reward: opt(v.object({ id: v.pipe(v.string(), v.minLength(1)), points: opt(nonNegativeInt) })),
  }),
  v.object({ object: v.literal('promotion_tier'), id: v.pipe(v.string(), v.minLength(1, 'must not be empty')) }),
  v.object({ object: v.literal('promotion_stack'), id: v.pipe(v.string(), v.minLength(1, 'must not be empty')) }),
])

export const TTL_UNITS = ['DAYS', 'HOURS', 'MINUTES', 'SECONDS', 'MILLISECONDS', 'MICROSECONDS', 'NANOSECONDS'] as const

const session = v.object({
  type: v.literal('LOCK'),
  key: opt(v.pipe(v.string(), v.minLength(1))),
  ttl: opt(v.pipe(v.number(), v.integer(), v.minValue(1))),
  ttl_unit: opt(v.picklist(TTL_UNITS)),
})

export const EXPAND_OPTIONS = ['order', 'redeemable', 'category', 'redemption'] as const

export const stackableRequest = v.object({
  redeemables: v.pipe(
    v.array(redeemable),
    v.minLength(1, 'must have between 1 and 30 items'),
    v.maxLength(30, 'must have between 1 and 30 items'),
  ),
  order: opt(orderInput),
  customer: opt(customerInput),
  session: opt(session),
  tracking_id: opt(v.string()),
  metadata: opt(metadata),
  options: opt(v.object({ expand: opt(v.array(v.picklist(EXPAND_OPTIONS))) })),
  channel: opt(v.string()),
})

export type StackableRequest = v.InferOutput<typeof stackableRequest>
export type RedeemableRequest = StackableRequest['redeemables'][number]

/**
 * Parses a validation or redemption body: the shape, then the rules of the request as a whole:
 * each redeemable at most once (`duplicated_redeemables`), a promotion stack alone (`invalid_redeemables`).
 */
export function parseStackableRequest(body: unknown): StackableRequest {
  const request = parse(stackableRequest, body)
  const seen = new Set<string>()
  for (const [i, r] of request.redeemables.entries()) {
    const key = `${r.object}:${r.id}`
    if (seen.has(key)) {
      throw new EngineError({
        code: 400,
        key: 'duplicated_redeemables',
        message: 'Duplicated redeemables detected',
        details: 'Duplicated redeemables detected in one redemption',
        path: `redeemables[${i}]`,
      })
    }
    seen.add(key)
  }
  const stack = request.redeemables.findIndex((r) => r.object === 'promotion_stack')
  if (stack >= 0 && request.redeemables.length > 1) {
    throw new EngineError({
      code: 400,
      key: 'invalid_redeemables',
      message: 'Invalid redeemables',
      details: 'Promotion Stack cannot be use with other redeemables',
      path: `redeemables[${stack}]`,
    })
  }
  return request
}

/** The body of a rollback: all optional (docs/concepts.md#rollbacks). */
export const rollbackRequest = v.object({
  reason: opt(v.string()),
  tracking_id: opt(v.string()),
  customer: opt(customerInput),
  order: opt(v.object({ id: opt(v.string()), source_id: opt(v.nullable(v.string())) })),
  metadata: opt(metadata),
})
export type RollbackRequest = v.InferOutput<typeof rollbackRequest>
