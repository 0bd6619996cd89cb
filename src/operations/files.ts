import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { FileObject } from '../model/misc'
import { nonEmptyString } from '../schema/common'
import { parse } from '../schema/parse'
import type { Context, Tx } from './context'

/** Where files are when no host serves them (the engine option `filesBaseUrl` names a real address). */
export const DEFAULT_FILES_BASE_URL = 'memory://files/'

/**
 * The files port: generated files (export CSVs) are stored in the `files` collection of the store, so
 * a database adapter keeps them with everything else and they commit with the write that makes them.
 */
export function storeFile(tx: Tx, file: { name: string; content_type: string; content: string }): FileObject {
  const id = tx.id(ID_PREFIX.file)
  return tx.insert('files', { id, ...file, url: `${tx.ctx.config.filesBaseUrl}${id}`, created_at: tx.nowIso })
}

export function files(ctx: Context) {
  return {
    /** A stored file by id or by its url, with its content. */
    async get(idOrUrl: string): Promise<FileObject> {
      const key = parse(nonEmptyString, idOrUrl, 'id')
      const base = [ctx.config.filesBaseUrl, DEFAULT_FILES_BASE_URL].find((b) => key.startsWith(b))
      const id = base === undefined ? key : key.slice(base.length)
      const found = await ctx.store.files.get(id)
      if (!found) throw EngineError.notFound('file', key, 'id')
      return found.value
    },
  }
}
