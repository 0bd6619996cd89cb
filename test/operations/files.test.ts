import { describe, expect, it } from 'vitest'
import { mutate } from '../../src/operations/context'
import { storeFile } from '../../src/operations/files'
import { testEngine } from '../support/engine'

describe('the files port', () => {
  it('stores a file as ordered chunks, joins them in files.get and streams them in files.download', async () => {
    const { engine, store } = testEngine({ filesBaseUrl: 'https://promo.example/v1/files/' })
    const pieces = Array.from({ length: 40 }, (_, i) => `row ${i},ż\r\n`)
    const file = await mutate(engine.context, async (tx) =>
      storeFile(tx, { name: 'rows.csv', content_type: 'text/csv', chunks: ['', ...pieces] }),
    )
    expect(file).toMatchObject({ chunks: 40, size: Buffer.byteLength(pieces.join('')) })
    expect(file.url).toBe(`https://promo.example/v1/files/${file.id}`)
    // No entity holds the whole content: the entry has none, each chunk one piece.
    expect(Object.keys((await store.files.get(file.id))?.value ?? {})).not.toContain('content')
    const chunks = (await store.file_chunks.list({ where: { file_id: file.id }, limit: 100 })).data
    expect(chunks.map((c) => c.value.content).sort()).toEqual([...pieces].sort())

    expect((await engine.files.get(file.url)).content).toBe(pieces.join(''))
    const streamed: string[] = []
    for await (const piece of (await engine.files.download(file.id)).content) streamed.push(piece)
    expect(streamed).toEqual(pieces)
    await expect(engine.files.download('file_missing')).rejects.toMatchObject({ code: 404, path: 'fileId' })
  })
})
