import { describe, expect, it } from 'vitest'
import { rejection, snapshot, testEngine } from '../../support/engine'

describe('exports.create (POST /v1/exports)', () => {
  it('exports the matching rows in the asked order, dotted fields reaching nested values', async () => {
    const { engine, store, clock } = testEngine()
    for (let i = 0; i < 450; i++) {
      clock.advance(1000)
      await engine.customers.create({ source_id: `c${String(i).padStart(3, '0')}`, metadata: { even: i % 2 === 0 } })
    }
    const exp = await engine.exports.create({
      exported_object: 'customer',
      parameters: {
        order: '-created_at',
        fields: ['source_id', 'metadata.even'],
        filters: { 'metadata.even': { conditions: { $is: [true] } } },
      },
    })
    expect(exp).toMatchObject({
      status: 'SCHEDULED',
      exported_object: 'customer',
      parameters: { order: '-created_at' },
    })
    await engine.asyncActions.runPending()
    const done = await engine.exports.get(exp.id)
    expect(done.status).toBe('DONE')
    const file = await engine.files.get(done.result?.url ?? '')
    const lines = file.content.trimEnd().split('\r\n')
    expect(lines[0]).toBe('source_id,metadata.even')
    expect(lines).toHaveLength(226)
    expect(lines[1]).toBe('c448,true')
    expect(lines.at(-1)).toBe('c000,true')
    // 225 rows: one chunk of up to 500 rows (test/operations/admin/exports-paging.test.ts pages larger ones).
    expect(file.chunks).toBe(1)
    expect((await store.file_chunks.list({ where: { file_id: file.id } })).total).toBe(1)
  })

  it('defaults the columns per object and refuses what it cannot export, writing nothing', async () => {
    const { engine, store } = testEngine()
    await engine.orders.create({ source_id: 'o1', amount: 100 })
    const exp = await engine.exports.create({ exported_object: 'order' })
    expect(exp.parameters).toMatchObject({
      // The hosted defaults for an order (docs/behaviour.md#exports).
      fields: ['id', 'source_id', 'status'],
      filters: { junction: 'AND' },
    })
    const before = await snapshot(store)
    for (const [body, path] of [
      [{ exported_object: 'points_expiration' }, 'exported_object'],
      [{ exported_object: 'customer', parameters: { order: 'email' } }, 'parameters.order'],
      [{ exported_object: 'voucher', parameters: { fields: ['a b'] } }, 'parameters.fields[0]'],
      [{ exported_object: 'voucher', parameters: { filters: { junction: 'XOR' } } }, 'parameters.filters.junction'],
      [
        { exported_object: 'voucher', parameters: { filters: { code: { conditions: { $nope: [1] } } } } },
        'parameters.filters.code.conditions.$nope',
      ],
    ] as const) {
      expect(await rejection(engine.raw.exports.create(body)), path).toMatchObject({ code: 400, path })
    }
    expect(await snapshot(store)).toBe(before)
  })
})
