import type { StackCandidate } from '../../../src/rules/stacking'

/** An APPLICABLE candidate at request `index` in the given category ids (hierarchy 1). */
export function ok(index: number, ...categoryIds: string[]): StackCandidate {
  return { index, status: 'APPLICABLE', categories: categoryIds.map((id) => ({ id, hierarchy: 1 })) }
}

export function bad(index: number, ...categoryIds: string[]): StackCandidate {
  return { index, status: 'INAPPLICABLE', categories: categoryIds.map((id) => ({ id, hierarchy: 1 })) }
}

export function noEffect(index: number, ...categoryIds: string[]): StackCandidate {
  return { ...ok(index, ...categoryIds), no_effect: true }
}
