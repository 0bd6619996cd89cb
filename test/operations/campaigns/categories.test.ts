import { describe, expect, it } from 'vitest'
import { rejection, snapshot, testEngine } from '../../support/engine'

describe('categories', () => {
  it('creates a category with the default hierarchy 1 and reads it back by id and name', async () => {
    const { engine } = testEngine()
    const created = await engine.categories.create({ name: 'Seasonal' })
    expect(created).toEqual({
      id: expect.stringMatching(/^cat_[0-9A-Za-z]{24}$/),
      name: 'Seasonal',
      hierarchy: 1,
      created_at: '2026-01-15T10:00:00.000Z',
      updated_at: null,
      object: 'category',
    })
    expect(await engine.categories.get(created.id)).toEqual(created)
    expect(await engine.categories.get('Seasonal')).toEqual(created)
  })

  it('keeps an explicit hierarchy, 0 included', async () => {
    const { engine } = testEngine()
    expect((await engine.categories.create({ name: 'Top', hierarchy: 0 })).hierarchy).toBe(0)
    expect((await engine.categories.create({ name: 'Low', hierarchy: 7 })).hierarchy).toBe(7)
  })

  it.each([
    ['a missing name', {}, 'name', 400],
    ['an empty name', { name: '' }, 'name', 400],
    ['a name of the wrong type', { name: 5 }, 'name', 400],
    ['a negative hierarchy', { name: 'X', hierarchy: -1 }, 'hierarchy', 400],
    ['a fractional hierarchy', { name: 'X', hierarchy: 1.5 }, 'hierarchy', 400],
  ])('rejects %s naming the field and writes nothing', async (_label, body, path, code) => {
    const { engine, store } = testEngine()
    const before = await snapshot(store)
    const error = await rejection(engine.raw.categories.create(body))
    expect(error).toMatchObject({ code, path })
    expect(await snapshot(store)).toBe(before)
  })

  it('rejects a duplicate name with 409 duplicate_found and writes nothing', async () => {
    const { engine, store } = testEngine()
    await engine.categories.create({ name: 'Seasonal' })
    const before = await snapshot(store)
    await expect(engine.categories.create({ name: 'Seasonal', hierarchy: 3 })).rejects.toMatchObject({
      code: 409,
      key: 'duplicate_found',
      path: 'name',
    })
    expect(await snapshot(store)).toBe(before)
  })

  it('gives 404 for an unknown category', async () => {
    const { engine } = testEngine()
    await expect(engine.categories.get('cat_nope')).rejects.toMatchObject({ code: 404, resource_type: 'category' })
    await expect(engine.categories.get('')).rejects.toMatchObject({ code: 400, path: 'categoryId' })
  })
})
