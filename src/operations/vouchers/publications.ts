import type { CallOptions } from '../../call-options'
import { parse } from '../../schema/parse'
import { publicationInput } from '../../schema/publication'
import type { PublicationsCreateParams } from '../../schema/requests'
import type { Context } from '../kernel/unit-of-work'
import { type PublicationResult, publish } from './publishing'

export function publications(ctx: Context) {
  return {
    /**
     * Publishes codes to a customer (`POST /v1/publications`): `voucher` (a code or id) or `campaign`
     * (id or name, or `{name, count}` for up to 100 codes; an AUTO_UPDATE campaign generates codes
     * when its free ones run out). With `source_id` the request is idempotent — the same `source_id`
     * returns the first publication again — and publishes exactly one code (the service interface's limit). The
     * customer is found by `id` or `source_id`, and created when its `source_id` is new.
     */
    async create(body: PublicationsCreateParams, options?: CallOptions): Promise<PublicationResult> {
      const input = parse(publicationInput, body)
      return publish(ctx, input, undefined, options)
    },
  }
}
