/**
 * EngineError: every "no" the engine throws. Business outcomes (an inapplicable voucher, a failed
 * redemption) are results, not exceptions; this is for bad input, missing resources, conflicts and
 * authentication. The JSON is the hosted service's error shape: `{code, key, message, details, request_id}`.
 */
export type ErrorCode = 400 | 401 | 403 | 404 | 405 | 409 | 410 | 413 | 415 | 422 | 423 | 500

export interface EngineErrorJSON {
  code: ErrorCode
  key: string
  message: string
  details: string
  request_id: string | null
  resource_id?: string
  resource_type?: string
}

export interface EngineErrorInit {
  code: ErrorCode
  key: string
  message: string
  details?: string
  /** The field path of bad input, e.g. `redeemables[1].id`. */
  path?: string
  resource_id?: string
  resource_type?: string
  request_id?: string
}

/**
 * The brand every EngineError carries, shared by every copy of the package in a process (the ESM and
 * CommonJS builds, or two versions): `Symbol.for` gives each copy the same symbol, where `instanceof`
 * would compare two different classes (docs/design.md#public-surface).
 */
const ENGINE_ERROR = Symbol.for('promo-engine.EngineError')

/** The longest `details`: ten problems with their paths and quoted prefixes fit well within it. */
const MAX_DETAILS = 2_000

export class EngineError extends Error {
  /** `instanceof EngineError` holds for an EngineError of any copy of the package. */
  static override [Symbol.hasInstance](value: unknown): boolean {
    return isEngineError(value)
  }

  readonly code: ErrorCode
  readonly key: string
  readonly details: string
  readonly path: string | undefined
  readonly resource_id: string | undefined
  readonly resource_type: string | undefined
  request_id: string | null

  constructor(init: EngineErrorInit) {
    super(init.message)
    this.name = 'EngineError'
    this.code = init.code
    this.key = init.key
    // Details name the bad value by a prefix where they quote it; this bounds them whatever they say.
    this.details = quote(init.details ?? init.message, MAX_DETAILS)
    this.path = init.path
    this.resource_id = init.resource_id
    this.resource_type = init.resource_type
    this.request_id = init.request_id ?? null
  }

  toJSON(): EngineErrorJSON {
    const json: EngineErrorJSON = {
      code: this.code,
      key: this.key,
      message: this.message,
      details: this.details,
      request_id: this.request_id,
    }
    if (this.resource_id !== undefined) json.resource_id = this.resource_id
    if (this.resource_type !== undefined) json.resource_type = this.resource_type
    return json
  }

  /** 400 for a bad field: `path` names it, `problem` says what is wrong with it. */
  static invalid(path: string, problem: string, key = 'invalid_payload'): EngineError {
    return new EngineError({
      code: 400,
      key,
      message: 'Invalid payload',
      details: `Property .${path} ${problem}`,
      path,
    })
  }

  /** `path` names the path parameter (`campaignId`, `memberId`, …) when the id came from one. */
  static notFound(
    resourceType: string,
    resourceId: string,
    path?: string,
    message = 'Resource not found',
  ): EngineError {
    return new EngineError({
      code: 404,
      key: 'not_found',
      message,
      details: `Cannot find ${resourceType} with id ${quote(resourceId)}`,
      ...(path === undefined ? {} : { path }),
      resource_id: resourceId,
      resource_type: resourceType,
    })
  }

  static conflict(key: string, details: string, path?: string): EngineError {
    return new EngineError({ code: 409, key, message: 'Conflict', details, ...(path === undefined ? {} : { path }) })
  }
}

/**
 * A bad value as error details quote it: whole when short, else its first `max` characters and how
 * many more there were, so a megabyte of bad input never comes back as a megabyte of details.
 */
export function quote(value: string, max = 100): string {
  return value.length <= max ? value : `${value.slice(0, max)}… (${value.length - max} more characters)`
}

Object.defineProperty(EngineError.prototype, ENGINE_ERROR, { value: true })

/** Whether `value` is an EngineError, from this copy of the package or any other. */
export function isEngineError(value: unknown): value is EngineError {
  return typeof value === 'object' && value !== null && (value as { [ENGINE_ERROR]?: unknown })[ENGINE_ERROR] === true
}
