import { csvLines } from '../../formats/csv'
import type { Export } from '../../model/export'
import type { FilterConditions, Filters } from '../../rules/match-filters'
import { type AsyncHandler, continueLater } from '../kernel/jobs'
import { must, type Tx } from '../kernel/unit-of-work'
import { abandonFile, appendChunk, closeFile, type FileProgress, openFile } from './stored-files'

/**
 * Rows per file chunk, and entities per store read: each step of an export's action reads pages of
 * its declared index from a cursor until it has a chunk's worth of rows, and commits that chunk with
 * the cursor (docs/http.md#asynchronous-actions-and-export-files). No step holds more than a chunk and
 * a page or two, whatever the size of the export.
 */
export const EXPORT_CHUNK_ROWS = 500

/** Where an export's writing stands between two steps: stored on its action (`state`). */
interface ExportState {
  file: FileProgress
  rows: number
  cursor: unknown
}

/** An export's rows, read from a declared index a page at a time, resumable from a cursor. */
export interface RowSource {
  header: readonly string[]
  /** Up to `limit` rows after `cursor` (undefined: from the start), and the cursor after the last one (null: no more). */
  next(cursor: unknown, limit: number): Promise<{ rows: unknown[][]; cursor: unknown }>
}

/**
 * The async handler of an export kind: each run is one step, one chunk of the file in one commit with
 * the cursor it reached, so a large export spans several commits and a crash between two loses and
 * repeats nothing (the next run goes on from the committed cursor; chunks are inserted by index, so
 * two workers on one step conflict instead of writing it twice). The last step makes the file
 * `READY` and the export `DONE` with its url.
 */
export function exportHandler(source: (tx: Tx, exp: Export) => Promise<RowSource>): AsyncHandler {
  return {
    async run(tx, action) {
      const { export_id } = action.payload as { export_id: string }
      const stored = await must(tx.ctx, 'exports', export_id, 'export')
      const exp = stored.value
      const state = action.state as ExportState | undefined
      const rows = await source(tx, exp)
      const file =
        state?.file ?? openFile(tx, { name: `${exp.exported_object}_${exp.id}.csv`, content_type: 'text/csv' })
      const page = await rows.next(state?.cursor, EXPORT_CHUNK_ROWS)
      const written = appendChunk(tx, file, csvLines(state ? page.rows : [rows.header, ...page.rows]))
      const count = (state?.rows ?? 0) + page.rows.length
      if (page.cursor !== null) {
        if (exp.status !== 'IN_PROGRESS') tx.update('exports', stored, { ...exp, status: 'IN_PROGRESS', result: null })
        return continueLater({ file: written, rows: count, cursor: page.cursor } satisfies ExportState)
      }
      const done = await closeFile(tx, written)
      tx.update('exports', stored, { ...exp, status: 'DONE', result: { url: done.url } })
      return { export_id: exp.id, file_id: done.id, rows: count }
    },

    /** A failed export is `ERROR` without a file, in the commit that marks its action `FAILED`. */
    async onFailure(tx, action) {
      const { export_id } = action.payload as { export_id: string }
      const stored = await tx.store.exports.get(export_id)
      if (stored) tx.update('exports', stored, { ...stored.value, status: 'ERROR', result: null })
      const state = action.state as ExportState | undefined
      if (state) await abandonFile(tx, state.file.id)
    },
  }
}

export function storedFilters(filters: Filters): Record<string, unknown> {
  const out: Record<string, unknown> = { junction: filters.junction }
  for (const [key, conditions] of Object.entries(filters.fields)) out[key] = { conditions }
  return out
}

export function filtersOf(stored: Record<string, unknown>): Filters {
  const fields: Record<string, FilterConditions> = {}
  for (const [key, value] of Object.entries(stored)) {
    if (key !== 'junction') fields[key] = (value as { conditions: FilterConditions }).conditions
  }
  return { junction: stored.junction === 'OR' ? 'OR' : 'AND', fields }
}
