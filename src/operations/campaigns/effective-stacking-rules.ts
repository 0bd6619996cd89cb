import { ID_PREFIX } from '../../ids'
import { DEFAULT_STACKING_RULES, type StackingRules } from '../../model/stacking'
import { resolveStackingRules } from '../../rules/stacking'
import { parse } from '../../schema/parse'
import { stackingRulesInput } from '../../schema/stacking'
import type { Context } from '../kernel/unit-of-work'

/** Stacking rules once created: they carry their id. */
export type StoredRules = StackingRules & { id: string }

/**
 * The project's one stacking-rules object has an id derived from the project, so two concurrent
 * creates write the same id and the store lets only one of them in (the other retries and gets 409).
 */
export function rulesIdOf(projectId: string): string {
  return `${ID_PREFIX.stacking_rules}${projectId}`
}

// The option is fixed when the engine is made: parsing and resolving it once per engine instead of
// once per validation (it was a tenth of a validation's CPU time). Memoisation, not state.
const configured = new WeakMap<Context['config'], StackingRules>()

/**
 * docs/behaviour.md#default-stacking-rules defaults with the engine's `stackingRules` option over them,
 * checked like a create body. Frozen: every request shares it.
 */
export function configuredRules(ctx: Context): StackingRules {
  const known = configured.get(ctx.config)
  if (known) return known
  const option = parse(stackingRulesInput, ctx.config.stackingRules ?? {}, 'stackingRules')
  const rules = resolveStackingRules({ ...DEFAULT_STACKING_RULES, ...option } as StackingRules)
  for (const value of Object.values(rules)) if (value !== null && typeof value === 'object') Object.freeze(value)
  configured.set(ctx.config, Object.freeze(rules))
  return rules
}

/** The rules in force: the project's created object, else the configured defaults. */
export async function effectiveStackingRules(ctx: Context): Promise<StackingRules> {
  const stored = await ctx.store.stacking_rules.get(rulesIdOf(ctx.config.projectId))
  return stored?.value ?? { ...configuredRules(ctx), object: 'stacking_rules' }
}
