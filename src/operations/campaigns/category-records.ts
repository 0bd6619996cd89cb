import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { Category } from '../../model/common'
import type { CategoryInput } from '../../schema/category'
import type { Stored } from '../../storage/ports'
import type { Context, Tx } from '../kernel/unit-of-work'

/** A category's hierarchy is 1 when unset, at least 0, and lower applies earlier (docs/concepts.md#categories). */
export const DEFAULT_CATEGORY_HIERARCHY = 1

/** Finds a category by id, else by its (unique) name. */
export async function findCategory(ctx: Context, idOrName: string): Promise<Stored<Category> | undefined> {
  return (await ctx.store.categories.get(idOrName)) ?? (await ctx.store.categories.findBy('name', idOrName))
}

/** Adds a new category to the transaction; the caller has checked the name is free. */
export function newCategory(tx: Tx, input: CategoryInput): Category {
  const category: Category = {
    id: tx.id(ID_PREFIX.category),
    name: input.name,
    hierarchy: input.hierarchy ?? DEFAULT_CATEGORY_HIERARCHY,
    created_at: tx.nowIso,
    updated_at: null,
    object: 'category',
  }
  tx.insert('categories', category)
  return category
}

/**
 * Resolves the `category` (a name) / `category_id` pair of a campaign or voucher. Both at once is
 * ambiguous and rejected. An unknown id is a 404; an unknown name creates the category with the
 * default hierarchy, so a campaign can be set up in one call (as the hosted dashboard does).
 */
export async function resolveCategoryRef(
  tx: Tx,
  input: { category?: string | null | undefined; category_id?: string | null | undefined },
  prefix = '',
): Promise<Category | null> {
  const at = (f: string) => (prefix ? `${prefix}.${f}` : f)
  if (input.category && input.category_id) {
    throw EngineError.invalid(at('category_id'), 'must not be given together with category (pass one of them)')
  }
  if (input.category_id) {
    const found = await tx.store.categories.get(input.category_id)
    if (!found) throw EngineError.notFound('category', input.category_id)
    return found.value
  }
  if (input.category) {
    const found = await tx.store.categories.findBy('name', input.category)
    if (found) return found.value
    const pending = tx.writes.find(
      (w) => w.op === 'put' && w.collection === 'categories' && (w.value as Category).name === input.category,
    )
    if (pending && pending.op === 'put') return pending.value as Category
    return newCategory(tx, { name: input.category })
  }
  return null
}
