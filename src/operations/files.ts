import type { CallOptions } from '../call-options'
import { EngineError } from '../errors'
import { ID_PREFIX } from '../ids'
import type { FileChunk, FileObject, StoredFile } from '../model/misc'
import { nonEmptyString } from '../schema/common'
import { parse } from '../schema/parse'
import type { Context, Tx } from './context'

/** Where files are when no host serves them (the engine option `filesBaseUrl` names a real address). */
export const DEFAULT_FILES_BASE_URL = 'memory://files/'

/** Chunks read per store call when a file is read back. */
const CHUNKS_PER_READ = 16

const chunkId = (fileId: string, index: number) => `${fileId}.${String(index).padStart(6, '0')}`

/**
 * The files port: a generated file (an export's CSV) is stored as an entry in `files` and its content
 * as pieces in `file_chunks`, in the store, so a database adapter keeps them with everything else, they
 * commit with the write that makes them, and no entity holds a whole file. Pieces are written as the
 * generator yields them (a page of rows each).
 */
export function storeFile(tx: Tx, file: { name: string; content_type: string; chunks: Iterable<string> }): StoredFile {
  const id = tx.id(ID_PREFIX.file)
  let index = 0
  let size = 0
  for (const content of file.chunks) {
    if (content === '') continue
    tx.insert('file_chunks', { id: chunkId(id, index), file_id: id, index, content })
    size += Buffer.byteLength(content, 'utf8')
    index++
  }
  return tx.insert('files', {
    id,
    name: file.name,
    content_type: file.content_type,
    url: `${tx.ctx.config.filesBaseUrl}${id}`,
    size,
    chunks: index,
    created_at: tx.nowIso,
  })
}

/** A file's content piece by piece, read from the store a page of chunks at a time. */
async function* chunksOf(ctx: Context, file: StoredFile): AsyncGenerator<string> {
  let after: string | undefined
  for (let read = 0; read < file.chunks; ) {
    const page = await ctx.store.file_chunks.list({
      where: { file_id: file.id },
      order: { field: 'index', direction: 'asc' },
      limit: CHUNKS_PER_READ,
      count: false,
      ...(after === undefined ? {} : { starting_after_id: after }),
    })
    if (page.data.length === 0) throw new Error(`file ${file.id} is missing chunk ${read}`)
    for (const chunk of page.data) yield (chunk.value as FileChunk).content
    read += page.data.length
    after = page.data.at(-1)?.value.id
  }
}

export function files(ctx: Context) {
  async function entry(idOrUrl: string): Promise<StoredFile> {
    const key = parse(nonEmptyString, idOrUrl, 'fileId')
    const base = [ctx.config.filesBaseUrl, DEFAULT_FILES_BASE_URL].find((b) => key.startsWith(b))
    const id = base === undefined ? key : key.slice(base.length)
    const found = await ctx.store.files.get(id)
    if (!found) throw EngineError.notFound('file', key, 'fileId')
    return found.value
  }

  return {
    /** A stored file by id or by its url, with its content joined (for files that fit in memory). */
    async get(idOrUrl: string, _options?: CallOptions): Promise<FileObject> {
      const file = await entry(idOrUrl)
      let content = ''
      for await (const piece of chunksOf(ctx, file)) content += piece
      return { ...file, content }
    },

    /** `GET /v1/files/{fileId}`: a stored file as a download, its content streamed chunk by chunk. */
    async download(idOrUrl: string, _options?: CallOptions): Promise<StoredFile & { content: AsyncIterable<string> }> {
      const file = await entry(idOrUrl)
      return { ...file, content: chunksOf(ctx, file) }
    },
  }
}
