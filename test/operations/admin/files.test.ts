import { describe, expect, it } from 'vitest'
import { engineContext } from '../../../src/engine'
import {
  abandonFile,
  appendChunk,
  closeFile,
  type FileProgress,
  openFile,
} from '../../../src/operations/admin/stored-files'
import { currentShape } from '../../../src/operations/kernel/shape-versions'
import { mutate } from '../../../src/operations/kernel/unit-of-work'
import { testEngine } from '../../support/engine'

describe('the files port', () => {
  it('writes a file chunk by chunk over several commits, serving it only once it is READY', async () => {
    const { engine, store } = testEngine({ filesBaseUrl: 'https://promo.example/v1/files/' })
    const pieces = Array.from({ length: 40 }, (_, i) => `row ${i},ż\r\n`)
    let file: FileProgress = await mutate(engineContext(engine), async (tx) =>
      appendChunk(tx, openFile(tx, { name: 'rows.csv', content_type: 'text/csv' }), ''),
    )
    expect(file.chunks).toBe(0)
    for (const piece of pieces.slice(0, 39)) {
      file = await mutate(engineContext(engine), async (tx) => appendChunk(tx, file, piece))
    }
    // Being written: not served, whole or streamed.
    await expect(engine.files.get(file.id)).rejects.toMatchObject({ code: 404, resource_type: 'file' })
    await expect(engine.files.download(file.id)).rejects.toMatchObject({ code: 404, path: 'fileId' })
    const done = await mutate(engineContext(engine), async (tx) =>
      closeFile(tx, appendChunk(tx, file, pieces[39] ?? '')),
    )
    expect(done).toMatchObject({
      status: 'READY',
      chunks: 40,
      size: Buffer.byteLength(pieces.join('')),
      expires_at: null,
    })
    expect(done.url).toBe(`https://promo.example/v1/files/${file.id}`)
    // No entity holds the whole content: the entry has none, each chunk one piece.
    expect(Object.keys((await store.files.get(file.id))?.value ?? {})).not.toContain('content')
    const chunks = (await store.file_chunks.list({ where: { file_id: file.id }, limit: 100 })).data
    expect(chunks.map((c) => c.value.content).sort()).toEqual([...pieces].sort())

    expect((await engine.files.get(done.url)).content).toBe(pieces.join(''))
    const streamed: string[] = []
    for await (const piece of (await engine.files.download(file.id)).content) streamed.push(piece)
    expect(streamed).toEqual(pieces)
    await expect(engine.files.download('file_missing')).rejects.toMatchObject({ code: 404, path: 'fileId' })
  })

  it('refuses a second write of the same chunk: two writers of one step cannot both land', async () => {
    const { engine } = testEngine()
    const file = await mutate(engineContext(engine), async (tx) =>
      openFile(tx, { name: 'a.csv', content_type: 'text/csv' }),
    )
    await mutate(engineContext(engine), async (tx) => appendChunk(tx, file, 'first\r\n'))
    const again = await engineContext(engine).store.commit({
      writes: [
        {
          op: 'put',
          collection: 'file_chunks',
          value: { id: `${file.id}.000000`, file_id: file.id, index: 0, content: 'dup\r\n' },
          expectedVersion: null,
          shape: currentShape('file_chunks'),
        },
      ],
    })
    expect(again).toMatchObject({ ok: false, conflict: { collection: 'file_chunks', reason: 'exists' } })
  })

  it('keeps a finished file fileRetentionSeconds; an abandoned one is FAILED and expired at once', async () => {
    const { engine, store } = testEngine({ fileRetentionSeconds: 3600 })
    const kept = await mutate(engineContext(engine), async (tx) =>
      closeFile(tx, appendChunk(tx, openFile(tx, { name: 'k.csv', content_type: 'text/csv' }), 'x\r\n')),
    )
    expect(kept.expires_at).toBe('2026-01-15T11:00:00.000Z')
    const left = await mutate(engineContext(engine), async (tx) =>
      appendChunk(tx, openFile(tx, { name: 'l.csv', content_type: 'text/csv' }), 'y\r\n'),
    )
    await mutate(engineContext(engine), async (tx) => abandonFile(tx, left.id))
    expect((await store.files.get(left.id))?.value).toMatchObject({
      status: 'FAILED',
      expires_at: '2026-01-15T10:00:00.000Z',
    })
    await expect(engine.files.get(left.id)).rejects.toMatchObject({ code: 404 })
  })
})
