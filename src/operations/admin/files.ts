import type { CallOptions } from '../../call-options'
import { EngineError, type EngineErrorInit } from '../../errors'
import { checkFileLink, type LinkCheck } from '../../formats/signed-file-links'
import type { FileChunk, FileObject, StoredFile } from '../../model/file'
import { nonEmptyString } from '../../schema/common'
import { parse } from '../../schema/parse'
import type { Context } from '../kernel/unit-of-work'
import { CHUNKS_PER_READ, fileIdOf } from './stored-files'

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

/** The query of a signed link, as `GET /v1/files/{fileId}` passes it. */
export interface FileLinkQuery {
  expires?: unknown
  signature?: unknown
}

/** What a bad link gets: 401 when it is not a link, 403 when it is not ours, 410 when it is too old. */
const LINK_ERRORS: Record<Exclude<LinkCheck, 'valid'>, EngineErrorInit> = {
  malformed: {
    code: 401,
    key: 'invalid_file_link',
    message: 'Invalid file link',
    details:
      'A file link carries expires (Unix seconds) and signature as the export gave them; get the export again for a fresh url',
  },
  forged: {
    code: 403,
    key: 'file_link_forbidden',
    message: 'Forbidden',
    details:
      'The file link signature does not match this file and expiry: it was changed, or signed with another secret',
  },
  expired: {
    code: 410,
    key: 'file_link_expired',
    message: 'File link expired',
    details: 'The file link has expired; get the export again (GET /v1/exports/{exportId}) for a fresh url',
  },
}

export function files(ctx: Context) {
  /** A `READY` file by id or url: one being written, or abandoned, is not there yet (404). */
  async function entry(idOrUrl: string): Promise<StoredFile> {
    const key = parse(nonEmptyString, idOrUrl, 'fileId')
    const found = await ctx.store.files.get(fileIdOf(ctx, key))
    if (found?.value.status !== 'READY') throw EngineError.notFound('file', key, 'fileId')
    return found.value
  }

  /** Checks a signed link's `expires` and `signature` for the file; absent both, the caller is trusted. */
  function checkLink(idOrUrl: string, link: FileLinkQuery | undefined): void {
    if (link?.expires === undefined && link?.signature === undefined) return
    const now = Math.floor(ctx.clock.now().getTime() / 1000)
    const check = checkFileLink(ctx.config.filesSecret, fileIdOf(ctx, idOrUrl), link, now)
    if (check !== 'valid') throw new EngineError({ ...LINK_ERRORS[check], path: 'signature' })
  }

  return {
    /** A stored file by id or by its url, with its content joined (for files that fit in memory). */
    async get(idOrUrl: string, _options?: CallOptions): Promise<FileObject> {
      const file = await entry(idOrUrl)
      let content = ''
      for await (const piece of chunksOf(ctx, file)) content += piece
      return { ...file, content }
    },

    /**
     * `GET /v1/files/{fileId}`: a stored file as a download, its content streamed chunk by chunk. With
     * a signed link's `expires` and `signature` (the query of an export's url) they are checked: 401
     * `invalid_file_link`, 403 `file_link_forbidden`, 410 `file_link_expired`. Without them the caller
     * is trusted (the HTTP handler asks for the API keys then).
     */
    async download(
      idOrUrl: string,
      link?: FileLinkQuery,
      _options?: CallOptions,
    ): Promise<StoredFile & { content: AsyncIterable<string> }> {
      checkLink(idOrUrl, link)
      const file = await entry(idOrUrl)
      return { ...file, content: chunksOf(ctx, file) }
    },
  }
}
