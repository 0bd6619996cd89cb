import type { DateTime } from './common'

/** A stored file (an export's CSV): its content is kept in `file_chunks`, in order, never as one string. */
export interface StoredFile {
  id: string
  name: string
  content_type: string
  url: string
  /** Content length in UTF-8 bytes. */
  size: number
  chunks: number
  /** `WRITING` while its chunks are written (not served), `READY` once whole, `FAILED` if abandoned. */
  status: 'WRITING' | 'READY' | 'FAILED'
  created_at: DateTime
  /** When `maintenance.purgeExpired` may delete it (the engine option `fileRetentionSeconds`); null: kept. */
  expires_at: DateTime | null
}

/** One piece of a stored file's content; `id` is the file id and the zero-padded index. */
export interface FileChunk {
  id: string
  file_id: string
  index: number
  content: string
}

/** A file as `files.get` answers it: the entry with its chunks joined. */
export type FileObject = StoredFile & { content: string }
