import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Credential } from '../../model/auth'
import { originAllowed } from '../../rules/origins'
import { type Family, grants, isClientScope, operationAccess, parseScope, type Scope } from '../../rules/scopes'
import { applicationInput, authenticateInput, revokeRequest, rotateSecretInput, tokenRequest } from '../../schema/auth'
import { parse } from '../../schema/parse'
import type {
  AuthAuthenticateParams,
  AuthCreateApplicationParams,
  AuthIssueTokenParams,
  AuthRevokeTokenParams,
  AuthRotateSecretParams,
} from '../../schema/requests'
import type { Stored } from '../../storage/ports'
import { duplicateFound } from '../kernel/duplicate-found'
import { type Context, mutate } from '../kernel/unit-of-work'

/** Request headers as a host has them (Node's `IncomingHttpHeaders` fits); names are case-insensitive. */
export type Headers = Readonly<Record<string, string | readonly string[] | undefined>>

export type CredentialFamily = Credential['family']

/** A new application's credentials: the secret is shown once, only its hash is stored. */
export interface ApplicationCredentials {
  app_id: string
  secret: string
}

export interface OAuthToken {
  access_token: string
  client_id: string
  /** Unix seconds. */
  expires_at: number
  expires_in: number
  scope: string
  token_type: 'Bearer'
}

export interface Principal {
  app_id: string
  family: Family
  /** The token's scopes (server and client families); empty for management and token endpoints. */
  scopes: Scope[]
}

/** The id and secret headers of each credential family (the service interface's Authentication table). */
const CREDENTIAL_HEADERS = {
  server: { id: 'X-App-Id', secret: 'X-App-Token' },
  client: { id: 'X-Client-Application-Id', secret: 'X-Client-Token' },
  management: { id: 'X-Management-Id', secret: 'X-Management-Token' },
} as const satisfies Record<CredentialFamily, { id: string; secret: string }>

/**
 * Every header `authenticate` reads (names are case-insensitive): a host may hand it these alone. The
 * HTTP handler does, instead of copying all of a request's headers for each request.
 */
export const AUTHENTICATION_HEADERS: readonly string[] = [
  ...Object.values(CREDENTIAL_HEADERS).flatMap((h) => [h.id, h.secret]),
  'Authorization',
  'Origin',
]

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest()
const hashHex = (text: string) => sha256(text).toString('hex')

/** Compared against when the app id is unknown, so an unknown id takes as long as a wrong secret. */
const NO_SECRET_HASH = hashHex('no credential has this secret')

function unauthorized(key: string, details: string, path?: string): EngineError {
  return new EngineError({ code: 401, key, message: 'Unauthorized', details, ...(path === undefined ? {} : { path }) })
}

function forbidden(key: string, details: string, path?: string): EngineError {
  return new EngineError({ code: 403, key, message: 'Forbidden', details, ...(path === undefined ? {} : { path }) })
}

/** Form bodies may come parsed (`{grant_type, scope}`) or as `URLSearchParams`. */
function formFields(body: unknown): unknown {
  return body instanceof URLSearchParams ? Object.fromEntries(body) : body
}

/**
 * A header's one value. Names are case-insensitive, so two spellings of one name (`X-App-Id` and
 * `x-app-id`) are ambiguous and refused, like a repeated header: the engine never guesses which counts.
 * A value that is not a string (or a one-string array, as Node gives repeated headers) is refused too.
 */
function header(headers: Headers, name: string): string | undefined {
  const wanted = name.toLowerCase()
  let found: { spelling: string; value: string } | undefined
  for (const [key, raw] of Object.entries(headers)) {
    if (key.toLowerCase() !== wanted || raw === undefined) continue
    if (found !== undefined) {
      throw unauthorized('duplicate_header', `Header ${name} is sent as both ${found.spelling} and ${key}`, name)
    }
    const value: unknown = Array.isArray(raw) && raw.length === 1 ? raw[0] : raw
    if (Array.isArray(raw) && raw.length !== 1) {
      throw unauthorized('invalid_header', `Header ${name} must be sent once`, name)
    }
    if (typeof value !== 'string') throw unauthorized('invalid_header', `Header ${name} must be a string`, name)
    found = { spelling: key, value }
  }
  const value = found?.value.trim()
  return value === '' ? undefined : value
}

function requireHeader(headers: Headers, name: string): string {
  const value = header(headers, name)
  if (value === undefined) throw unauthorized('missing_header', `Header ${name} is required`, name)
  return value
}

export function auth(ctx: Context) {
  /**
   * Secrets and tokens: 32 bytes from the operating system's CSPRNG, never from the engine's `random`
   * (a seeded source makes codes reproducible; it must not make credentials guessable).
   */
  const secretBytes = (): string => randomBytes(32).toString('base64url')

  /** Checks a family's id and secret headers; any mismatch is the same 401, whatever was wrong. */
  async function credentialOf(headers: Headers, family: CredentialFamily): Promise<Stored<Credential>> {
    const names = CREDENTIAL_HEADERS[family]
    const id = requireHeader(headers, names.id)
    const secret = requireHeader(headers, names.secret)
    const found = await ctx.store.credentials.findBy('app_id', id)
    const expected = Buffer.from(found?.value.secret_hash ?? NO_SECRET_HASH, 'hex')
    const matches = timingSafeEqual(sha256(secret), expected)
    if (!found || !matches || found.value.family !== family) {
      throw unauthorized('unauthorized', `Invalid ${names.id} / ${names.secret} pair`)
    }
    return found
  }

  /** The token endpoints take server credentials; client applications get tokens with theirs. */
  function tokenFamily(headers: Headers): 'server' | 'client' {
    if (headers === null || typeof headers !== 'object') {
      throw unauthorized(
        'missing_header',
        `Missing header ${CREDENTIAL_HEADERS.server.id}`,
        CREDENTIAL_HEADERS.server.id,
      )
    }
    return header(headers, CREDENTIAL_HEADERS.server.id) === undefined &&
      header(headers, CREDENTIAL_HEADERS.client.id) !== undefined
      ? 'client'
      : 'server'
  }

  async function bearer(headers: Headers, credential: Credential, now: Date) {
    const value = requireHeader(headers, 'Authorization')
    const match = /^Bearer +(\S+)$/i.exec(value)
    if (!match?.[1])
      throw unauthorized('invalid_authorization_header', 'Authorization must be "Bearer <token>"', 'Authorization')
    const hash = hashHex(match[1])
    const found = await ctx.store.access_tokens.findBy('token_hash', hash)
    if (
      !found ||
      !timingSafeEqual(Buffer.from(found.value.token_hash, 'hex'), Buffer.from(hash, 'hex')) ||
      found.value.credential_id !== credential.id
    ) {
      throw unauthorized('invalid_token', 'The access token is not valid for these credentials', 'Authorization')
    }
    if (found.value.revoked_at !== null)
      throw unauthorized('token_revoked', 'The access token was revoked', 'Authorization')
    if (now.getTime() >= Date.parse(found.value.expires_at)) {
      throw unauthorized('token_expired', `The access token expired at ${found.value.expires_at}`, 'Authorization')
    }
    return found.value
  }

  /**
   * A bearer token's scopes; in `keys` mode a request without one gets the application's own scopes
   * (the family's whole API unless it was created with a list), as the hosted service grants keys.
   */
  async function grantedScopes(headers: Headers, credential: Credential, family: 'server' | 'client', now: Date) {
    if (ctx.config.authentication === 'keys' && header(headers, 'Authorization') === undefined) {
      return (credential.scopes ?? [family === 'client' ? 'client_api' : 'api']) as Scope[]
    }
    const token = await bearer(headers, credential, now)
    return token.scope as Scope[]
  }

  return {
    /**
     * Registers an application (server), a client application or a management key. The secret is
     * returned here only: the store keeps its SHA-256 hash.
     */
    async createApplication(
      body: AuthCreateApplicationParams,
      _options?: CallOptions,
    ): Promise<ApplicationCredentials> {
      const input = parse(applicationInput, body)
      const secret = input.secret ?? secretBytes()
      return mutate(ctx, async (tx) => {
        const id = tx.id(ID_PREFIX.credential)
        const appId = input.app_id ?? id
        if (input.app_id !== undefined && (await tx.store.credentials.findBy('app_id', appId))) {
          throw duplicateFound('application', 'app_id', appId)
        }
        tx.insert('credentials', {
          id,
          family: input.family,
          app_id: appId,
          secret_hash: hashHex(secret),
          ...(input.allowed_origins === undefined ? {} : { allowed_origins: input.allowed_origins }),
          ...(input.scopes === undefined ? {} : { scopes: input.scopes }),
          name: input.name ?? null,
          created_at: tx.nowIso,
        })
        return { app_id: appId, secret }
      })
    },

    /**
     * Gives an application a new secret (the given one, or 32 random bytes) and returns it, shown once:
     * the old secret stops working at once. Tokens issued before stay valid until they expire.
     */
    async rotateSecret(
      appId: string,
      body: AuthRotateSecretParams = {},
      _options?: CallOptions,
    ): Promise<ApplicationCredentials> {
      // The app id is checked with the body, so a wrong one is refused like a wrong field.
      const given =
        body !== null && typeof body === 'object' && !Array.isArray(body) ? { ...body, app_id: appId } : body
      const input = parse(rotateSecretInput, given)
      const secret = input.secret ?? secretBytes()
      return mutate(ctx, async (tx) => {
        const found = await tx.store.credentials.findBy('app_id', input.app_id)
        if (!found) throw EngineError.notFound('application', input.app_id, 'app_id')
        tx.update('credentials', found, { ...found.value, secret_hash: hashHex(secret) })
        return { app_id: input.app_id, secret }
      })
    },

    /**
     * `POST /v1/oauth/token`: a `client_credentials` grant for the scopes asked (space-separated).
     * Server credentials get server scopes, client credentials `client_*` ones.
     */
    async issueToken(credentials: Headers, body: AuthIssueTokenParams, _options?: CallOptions): Promise<OAuthToken> {
      const family = tokenFamily(credentials)
      const credential = await credentialOf(credentials, family)
      const input = parse(tokenRequest, formFields(body))
      if (input.grant_type !== 'client_credentials') {
        // The hosted service's key for this (docs/errors.md#bad-input-400), not OAuth's `unsupported_grant_type`.
        throw EngineError.invalid('grant_type', 'must be client_credentials', 'invalid_grant_type')
      }
      const parsed = parseScope(input.scope)
      if (!parsed.ok) throw EngineError.invalid('scope', parsed.problem, 'invalid_scope')
      const foreign = parsed.scopes.find((s) => isClientScope(s) !== (family === 'client'))
      if (foreign !== undefined) {
        throw EngineError.invalid(
          'scope',
          `has "${foreign}", which a ${family} application cannot be granted`,
          'invalid_scope',
        )
      }
      const token = secretBytes()
      return mutate(ctx, async (tx) => {
        const ttl = ctx.config.tokenTtlSeconds
        const expiresAt = Math.floor(tx.now.getTime() / 1000) + ttl
        tx.insert('access_tokens', {
          id: tx.id(ID_PREFIX.token),
          token_hash: hashHex(token),
          client_id: credential.value.app_id,
          credential_id: credential.value.id,
          scope: parsed.scopes,
          expires_at: new Date(expiresAt * 1000).toISOString(),
          revoked_at: null,
          created_at: tx.nowIso,
        })
        return {
          access_token: token,
          client_id: credential.value.app_id,
          expires_at: expiresAt,
          expires_in: ttl,
          scope: parsed.scopes.join(' '),
          token_type: 'Bearer' as const,
        }
      })
    },

    /**
     * `POST /v1/oauth/token/revoke`. As RFC 7009 asks, an unknown token, another application's token
     * or one already revoked is not an error: the call succeeds and changes nothing.
     */
    async revokeToken(credentials: Headers, body: AuthRevokeTokenParams, _options?: CallOptions): Promise<void> {
      const credential = await credentialOf(credentials, tokenFamily(credentials))
      const input = parse(revokeRequest, formFields(body))
      await mutate(ctx, async (tx) => {
        const found = await tx.store.access_tokens.findBy('token_hash', hashHex(input.access_token))
        if (!found || found.value.credential_id !== credential.value.id || found.value.revoked_at !== null) return
        tx.update('access_tokens', found, { ...found.value, revoked_at: tx.nowIso })
      })
    },

    /**
     * Decides whether a request may run `operation` (a name of the operation table): the family's
     * credential headers (401 `missing_header`, `unauthorized`, compared in constant time), for server
     * and client requests a Bearer token of that application (401 `invalid_token`, `token_revoked`,
     * `token_expired`; optional in `keys` mode, where the application's own scopes apply) with the
     * operation's scope (403 `insufficient_scope`), for client requests an allowed `origin`
     * (403 `origin_not_allowed`). Reads only.
     */
    async authenticate(request: AuthAuthenticateParams, _options?: CallOptions): Promise<Principal> {
      const input = parse(authenticateInput, request)
      const access = operationAccess(input.operation)
      if (!access)
        throw EngineError.invalid(
          'operation',
          `is not an operation of the table: ${input.operation}`,
          'unknown_operation',
        )
      if (access.family !== input.family) {
        throw EngineError.invalid('family', `must be ${access.family} for ${input.operation}`, 'wrong_family')
      }
      const headers = input.headers as Headers
      const now = ctx.clock.now()
      switch (input.family) {
        case 'token': {
          const credential = await credentialOf(headers, tokenFamily(headers))
          return { app_id: credential.value.app_id, family: 'token', scopes: [] }
        }
        case 'management': {
          const credential = await credentialOf(headers, 'management')
          return { app_id: credential.value.app_id, family: 'management', scopes: [] }
        }
        case 'server':
        case 'client': {
          const credential = await credentialOf(headers, input.family)
          const origin = input.family === 'client' ? requireHeader(headers, 'origin') : undefined
          const scopes = await grantedScopes(headers, credential.value, input.family, now)
          if (!grants(scopes, access)) {
            throw forbidden(
              'insufficient_scope',
              `${input.operation} needs the ${access.scope} scope (or ${input.family === 'client' ? 'client_api' : 'api'}); the token has ${scopes.join(' ')}`,
              'scope',
            )
          }
          if (origin !== undefined && !originAllowed(origin, credential.value.allowed_origins ?? [])) {
            throw forbidden(
              'origin_not_allowed',
              `Origin ${origin} is not allowed for this client application`,
              'origin',
            )
          }
          return { app_id: credential.value.app_id, family: input.family, scopes }
        }
        default: {
          const _never: never = input.family
          return _never
        }
      }
    },
  }
}
