import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { resolve } from 'node:path'
import type { Logger } from 'pino'
import type { Engine } from '../../../src'
import { describe } from './observe'
import type { KeyPair, Settings } from './settings'

export type Family = 'server' | 'client' | 'management'
export type Keys = Record<Family, KeyPair>

const FAMILIES: readonly Family[] = ['server', 'client', 'management']

/** The variables a family's keys come from, for the lines that name them. */
export const KEY_VARIABLES: Record<Family, { id: string; secret: string }> = {
  server: { id: 'PROMO_APP_ID', secret: 'PROMO_APP_SECRET' },
  client: { id: 'PROMO_CLIENT_ID', secret: 'PROMO_CLIENT_SECRET' },
  management: { id: 'PROMO_MANAGEMENT_ID', secret: 'PROMO_MANAGEMENT_SECRET' },
}

/** A start-up failure the operator can act on: one line, no stack trace. */
export class StartError extends Error {
  override readonly name = 'StartError'
}

/**
 * The keys of the three applications: from the environment, else from the keys file, else made here
 * and written to the keys file once (mode 0600, so only this user reads them). Processes starting at
 * once race for the file with an exclusive create, and the losers read the winner's keys.
 */
export function resolveKeys(
  given: Record<Family, KeyPair | undefined>,
  keysFile: string,
): { keys: Keys; file: { path: string; written: boolean } | null } {
  const missing = FAMILIES.filter((f) => given[f] === undefined)
  if (missing.length === 0) return { keys: given as Keys, file: null }
  const path = resolve(keysFile)
  let stored = readKeysFile(path)
  let written = false
  if (stored === undefined) {
    const made = Object.fromEntries(FAMILIES.map((f) => [f, newKeyPair(f)])) as Keys
    try {
      writeFileSync(path, `${JSON.stringify(made, null, 2)}\n`, { mode: 0o600, flag: 'wx' })
      stored = made
      written = true
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') {
        throw new StartError(`PROMO_KEYS_FILE ${path} cannot be written: ${(error as Error).message}`)
      }
      stored = readKeysFile(path)
    }
  }
  const keys = Object.fromEntries(
    FAMILIES.map((f) => {
      const pair = given[f] ?? stored?.[f]
      if (pair === undefined) {
        throw new StartError(
          `PROMO_KEYS_FILE ${path} has no ${f} keys: set ${KEY_VARIABLES[f].id} and ${KEY_VARIABLES[f].secret}`,
        )
      }
      return [f, pair]
    }),
  ) as Keys
  return { keys, file: { path, written } }
}

function readKeysFile(path: string): Partial<Keys> | undefined {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw new StartError(`PROMO_KEYS_FILE ${path} cannot be read: ${(error as Error).message}`)
  }
  try {
    const parsed = JSON.parse(text) as Partial<Keys>
    for (const f of FAMILIES) {
      const pair = parsed[f]
      if (pair !== undefined && (typeof pair.app_id !== 'string' || typeof pair.secret !== 'string')) throw new Error()
    }
    return parsed
  } catch {
    throw new StartError(
      `PROMO_KEYS_FILE ${path} must hold the JSON this server wrote ({ server, client, management })`,
    )
  }
}

function newKeyPair(family: Family): KeyPair {
  const prefix = { server: 'app_', client: 'client_', management: 'mgmt_' }[family]
  return { app_id: `${prefix}${randomBytes(12).toString('hex')}`, secret: randomBytes(32).toString('base64url') }
}

/**
 * Registers an application with the given keys, or, when its app id is already stored (a restart, a
 * second process), checks that the secret is the stored one: a different one is refused at start.
 */
export async function ensureApplication(
  engine: Engine,
  family: Family,
  pair: KeyPair,
  origins: readonly string[],
): Promise<'created' | 'existing'> {
  try {
    await engine.auth.createApplication({
      name: `${family} (promo-engine serve)`,
      family,
      ...pair,
      ...(family === 'client' ? { allowed_origins: [...origins] } : {}),
    })
    return 'created'
  } catch (error) {
    if ((error as { key?: unknown }).key !== 'duplicate_found') throw error
  }
  try {
    await engine.auth.authenticate(
      family === 'management'
        ? {
            family: 'management',
            headers: { 'X-Management-Id': pair.app_id, 'X-Management-Token': pair.secret },
            operation: 'stackingRules.list',
          }
        : {
            family: 'token',
            headers:
              family === 'server'
                ? { 'X-App-Id': pair.app_id, 'X-App-Token': pair.secret }
                : { 'X-Client-Application-Id': pair.app_id, 'X-Client-Token': pair.secret },
            operation: 'auth.issueToken',
          },
    )
    return 'existing'
  } catch (error) {
    if ((error as { code?: unknown }).code !== 401) throw error
    const v = KEY_VARIABLES[family]
    throw new StartError(
      `${v.secret} is not the secret stored for ${family} application ${pair.app_id} (${v.id}), or that id belongs to another kind of application; to give it a new secret run: promo-engine rotate-secret ${pair.app_id}`,
    )
  }
}

/**
 * The three applications registered at start (or found, on a restart) with their keys: from the
 * settings, else the keys file; a server started without one (programmatic use) makes keys it keeps
 * in memory only.
 */
export async function startApplications(engine: Engine, settings: Settings, logger: Logger): Promise<Keys> {
  const { keys, file } =
    settings.keysFile === null
      ? {
          keys: Object.fromEntries(FAMILIES.map((f) => [f, settings.keys[f] ?? newKeyPair(f)])) as Keys,
          file: null,
        }
      : resolveKeys(settings.keys, settings.keysFile)
  for (const family of FAMILIES) {
    const source =
      settings.keys[family] !== undefined ? KEY_VARIABLES[family].secret : `the keys file ${file?.path ?? ''}`
    try {
      const outcome = await ensureApplication(engine, family, keys[family], settings.clientOrigins)
      logger.info({ family, app_id: keys[family].app_id, outcome, source }, 'application keys')
    } catch (error) {
      if (error instanceof StartError) throw new StartError(error.message.replace(KEY_VARIABLES[family].secret, source))
      throw new StartError(`the ${family} application cannot be registered: ${describe(error)}`)
    }
  }
  if (file?.written)
    logger.warn({ keys_file: file.path }, 'application keys created and written to the keys file (mode 0600)')
  else if (file) logger.info({ keys_file: file.path }, 'application keys read from the keys file')
  return keys
}
