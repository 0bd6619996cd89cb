import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import type { Category } from '../../model/common'
import { categoryInput } from '../../schema/category'
import { nonEmptyString } from '../../schema/common'
import { parse } from '../../schema/parse'
import type { CategoriesCreateParams } from '../../schema/requests'
import { duplicateFound } from '../kernel/duplicate-found'
import { type Context, mutate } from '../kernel/unit-of-work'
import { findCategory, newCategory } from './category-records'

export function categories(ctx: Context) {
  return {
    /** Creates a category; `name` is unique in the project (409 `duplicate_found` naming `name`). */
    async create(body: CategoriesCreateParams, _options?: CallOptions): Promise<Category> {
      const input = parse(categoryInput, body)
      return mutate(ctx, async (tx) => {
        if (await tx.store.categories.findBy('name', input.name)) throw duplicateFound('category', 'name', input.name)
        return newCategory(tx, input)
      })
    },

    /** Reads a category by id (or by name). */
    async get(categoryId: string, _options?: CallOptions): Promise<Category> {
      const id = parse(nonEmptyString, categoryId, 'categoryId')
      const found = await findCategory(ctx, id)
      if (!found) throw EngineError.notFound('category', id, 'categoryId')
      return found.value
    },
  }
}
