import type { CallOptions } from '../call-options'
import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { FileObject } from '../model/misc'
import { nonEmptyString } from '../schema/common'
import { parse } from '../schema/parse'
import type { Context, Tx } from './context'

/** The url of a file kept in the engine's store; a host serving downloads maps it to its own route. */
export const fileUrl = (id: string) => `memory://files/${id}`

/**
 * The files port: generated files (export CSVs) are stored in the `files` collection of the store, so
 * a database adapter keeps them with everything else and they commit with the write that makes them.
 */
export function storeFile(tx: Tx, file: { name: string; content_type: string; content: string }): FileObject {
  const id = tx.id(ID_PREFIX.file)
  return tx.insert('files', { id, ...file, url: fileUrl(id), created_at: tx.nowIso })
}

export function files(ctx: Context) {
  return {
    /** A stored file by id or by its `memory://files/<id>` url, with its content. */
    async get(idOrUrl: string, _options?: CallOptions): Promise<FileObject> {
      const key = parse(nonEmptyString, idOrUrl, 'id')
      const id = key.startsWith('memory://files/') ? key.slice('memory://files/'.length) : key
      const found = await ctx.store.files.get(id)
      if (!found) throw EngineError.notFound('file', key, 'id')
      return found.value
    },
  }
}
