import { parseOriginPattern } from '../rules/origins'
import { isClientScope, SCOPES } from '../rules/scopes'
import { nonEmptyString, opt } from './common'
import * as v from './valibot'

export const FAMILIES = ['server', 'client', 'management'] as const

/** An `allowed_origins` entry: refused with the reason when it could never match as meant. */
const allowedOrigin = v.pipe(
  nonEmptyString,
  v.rawCheck(({ dataset, addIssue }) => {
    if (!dataset.typed) return
    const pattern = parseOriginPattern(dataset.value)
    if ('problem' in pattern) addIssue({ message: pattern.problem })
  }),
)

const appId = v.pipe(v.string(), v.regex(/^[\w.-]{4,128}$/, 'must be 4-128 letters, digits, _ . or -'))
const secret = v.pipe(v.string(), v.minLength(24, 'must be at least 24 characters'), v.maxLength(512))

/** `auth.rotateSecret(appId, body)`: the new secret, or none to have one made. */
export const rotateSecretInput = v.object({ app_id: appId, secret: opt(secret) })

export const applicationInput = v.pipe(
  v.object({
    name: opt(v.nullable(v.string())),
    family: v.picklist(FAMILIES, 'must be one of server, client, management'),
    allowed_origins: opt(v.array(allowedOrigin)),
    scopes: opt(v.array(v.picklist(SCOPES, 'must be a scope value of the interface'))),
    /** Keys a host already has (from its environment); generated when absent. */
    app_id: opt(appId),
    secret: opt(secret),
  }),
  // A client application answers browsers: it must say which origins may call it (`*` for any).
  v.forward(
    v.check(
      (a) => a.family !== 'client' || (a.allowed_origins ?? []).length > 0,
      'is required for a client application (list origins, or "*" for any)',
    ),
    ['allowed_origins'],
  ),
  v.forward(
    v.check(
      (a) => (a.scopes ?? []).every((s) => isClientScope(s) === (a.family === 'client')),
      'must be client_* scopes for a client application and server scopes for a server one',
    ),
    ['scopes'],
  ),
)

/** Form fields arrive as strings. */
export const formString = v.pipe(v.string(), v.minLength(1, 'must not be empty'))

export const tokenRequest = v.object({ grant_type: formString, scope: formString })

export const revokeRequest = v.object({ access_token: formString })

export const authenticateInput = v.object({
  family: v.picklist(['server', 'client', 'management', 'token'], 'must be one of server, client, management, token'),
  headers: v.record(v.string(), v.union([v.string(), v.array(v.string()), v.undefined()])),
  operation: nonEmptyString,
})
