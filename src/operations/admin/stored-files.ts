import { signFileLink } from '../../formats/signed-file-links'
import { ID_PREFIX } from '../../ids'
import type { StoredFile } from '../../model/file'
import type { Stored } from '../../storage/ports'
import type { Context, Tx } from '../kernel/unit-of-work'

/** Where files are when no host serves them (the engine option `filesBaseUrl` names a real address). */
export const DEFAULT_FILES_BASE_URL = 'memory://files/'

/** Chunks read per store call when a file is read back. */
export const CHUNKS_PER_READ = 16

const chunkId = (fileId: string, index: number) => `${fileId}.${String(index).padStart(6, '0')}`

/**
 * The files port: a generated file (an export's CSV) is stored as an entry in `files` and its content
 * as pieces in `file_chunks`, in the store, so a database adapter keeps them with everything else and
 * no entity holds a whole file. A file is written over several commits (one chunk each, with the
 * writer's cursor): its entry is `WRITING`, and not served, until `closeFile` makes it `READY` in the
 * commit of its last chunk. A file abandoned part-way is `FAILED` and expired at once, for
 * `maintenance.purgeExpired` to take away.
 */
export interface FileProgress {
  id: string
  /** Chunks written so far: the next one's index. */
  chunks: number
  /** UTF-8 bytes written so far. */
  size: number
}

/** Makes a file's entry, `WRITING`, in the transaction of its first chunk. */
export function openFile(tx: Tx, file: { name: string; content_type: string }): FileProgress {
  const id = tx.id(ID_PREFIX.file)
  tx.insert('files', {
    id,
    name: file.name,
    content_type: file.content_type,
    url: `${tx.ctx.config.filesBaseUrl}${id}`,
    size: 0,
    chunks: 0,
    status: 'WRITING',
    created_at: tx.nowIso,
    expires_at: null,
  })
  return { id, chunks: 0, size: 0 }
}

/**
 * Writes the next chunk (nothing for empty content). Its id is the file id and its index, inserted as
 * new: a second writer of the same chunk conflicts instead of writing it twice.
 */
export function appendChunk(tx: Tx, file: FileProgress, content: string): FileProgress {
  if (content === '') return file
  tx.insert('file_chunks', { id: chunkId(file.id, file.chunks), file_id: file.id, index: file.chunks, content })
  return { id: file.id, chunks: file.chunks + 1, size: file.size + Buffer.byteLength(content, 'utf8') }
}

/** Makes the file `READY` with its size and chunk count (kept `fileRetentionSeconds`, when set). */
export async function closeFile(tx: Tx, file: FileProgress): Promise<StoredFile> {
  const stored = await entryOf(tx, file.id)
  const retention = tx.ctx.config.fileRetentionSeconds
  return tx.update('files', stored, {
    ...stored.value,
    size: file.size,
    chunks: file.chunks,
    status: 'READY',
    expires_at: retention === null ? null : new Date(tx.now.getTime() + retention * 1000).toISOString(),
  })
}

/** A file whose writing failed part-way: `FAILED`, expired now, so the purge removes its chunks. */
export async function abandonFile(tx: Tx, fileId: string): Promise<void> {
  const stored = await tx.store.files.get(fileId)
  if (stored) tx.update('files', stored, { ...stored.value, status: 'FAILED', expires_at: tx.nowIso })
}

/** The file's entry as this transaction inserted it (a file written in one step), else as stored. */
async function entryOf(tx: Tx, fileId: string): Promise<Stored<StoredFile>> {
  const inserted = tx.writes.find((w) => w.op === 'put' && w.collection === 'files' && w.value.id === fileId)
  // An update of an entity this transaction inserted replaces the insert (the version is not used).
  if (inserted?.op === 'put') return { value: inserted.value as StoredFile, version: 0 }
  const stored = await tx.store.files.get(fileId)
  if (!stored) throw new Error(`file ${fileId} is missing its entry`)
  return stored
}

/**
 * A file's url, signed: it carries `expires` (now plus `fileLinkTtlSeconds`) and a `signature`, so a
 * browser or `curl` downloads it from `GET /v1/files/{fileId}` without the API keys until then.
 */
export function signedFileUrl(ctx: Context, url: string): string {
  const id = fileIdOf(ctx, url)
  const expires = Math.floor(ctx.clock.now().getTime() / 1000) + ctx.config.fileLinkTtlSeconds
  const link = signFileLink(ctx.config.filesSecret, id, expires)
  return `${url.split('?')[0]}?expires=${link.expires}&signature=${link.signature}`
}

/** The file id of an id or url (its query, if any, left off). */
export function fileIdOf(ctx: Context, idOrUrl: string): string {
  const key = idOrUrl.split('?')[0] ?? ''
  const base = [ctx.config.filesBaseUrl, DEFAULT_FILES_BASE_URL].find((b) => key.startsWith(b))
  return base === undefined ? key : key.slice(base.length)
}
