import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import type { ListEnvelope } from '../../model/common'
import { DEFAULT_STACKING_RULES, type StackingRules } from '../../model/stacking'
import { resolveStackingRules } from '../../rules/stacking'
import { nonEmptyString } from '../../schema/common'
import { parse } from '../../schema/parse'
import type { StackingRulesCreateParams, StackingRulesUpdateParams } from '../../schema/requests'
import { stackingRulesInput } from '../../schema/stacking'
import type { Stored } from '../../storage/ports'
import { type Context, mutate } from '../kernel/unit-of-work'
import { configuredRules, rulesIdOf, type StoredRules } from './effective-stacking-rules'

export function stackingRules(ctx: Context) {
  // A bad engine option fails at createEngine, not at the first validation that reads it.
  const configured = configuredRules(ctx)

  function project(projectId: string): string {
    const id = parse(nonEmptyString, projectId, 'projectId')
    if (id !== ctx.config.projectId) throw EngineError.notFound('project', id, 'projectId')
    return id
  }

  async function stored(projectId: string): Promise<Stored<StoredRules> | undefined> {
    return ctx.store.stacking_rules.get(rulesIdOf(projectId))
  }

  async function effective(projectId: string): Promise<StackingRules> {
    return (await stored(project(projectId)))?.value ?? { ...configured, object: 'stacking_rules' }
  }

  return {
    /**
     * The management list: exactly one object, the created rules or else the configured defaults
     * (those carry no `id`: there is no stored resource yet).
     */
    async list(projectId: string, _options?: CallOptions): Promise<ListEnvelope<'data', StackingRules> & { total: 1 }> {
      return { object: 'list', data_ref: 'data', data: [await effective(projectId)], total: 1 }
    },

    /** The rules in force for the project: what the validation pipeline applies. */
    get: (projectId: string, _options?: CallOptions) => effective(projectId),

    /**
     * Creates the project's stacking rules. Fields left out take the docs/behaviour.md#default-stacking-rules
     * defaults (the engine option only stands in while no rules are created). A second create is a 409
     * `stacking_rules_exist`.
     */
    async create(projectId: string, body: StackingRulesCreateParams, _options?: CallOptions): Promise<StoredRules> {
      const projectKey = project(projectId)
      const input = parse(stackingRulesInput, body)
      const merged = resolveStackingRules({ ...DEFAULT_STACKING_RULES, ...input } as StackingRules)
      return mutate(ctx, async (tx) => {
        if (await stored(projectKey)) {
          throw EngineError.conflict(
            'stacking_rules_exist',
            `Project ${projectKey} already has stacking rules; update them instead`,
          )
        }
        const rules: StoredRules = {
          ...merged,
          id: rulesIdOf(projectKey),
          created_at: tx.nowIso,
          updated_at: null,
          object: 'stacking_rules',
        }
        return tx.insert('stacking_rules', rules)
      })
    },

    /** Changes the created rules: the body's fields over the stored ones, checked as a whole. */
    async update(
      projectId: string,
      stackingRulesId: string,
      body: StackingRulesUpdateParams,
      _options?: CallOptions,
    ): Promise<StoredRules> {
      const projectKey = project(projectId)
      const id = parse(nonEmptyString, stackingRulesId, 'stackingRulesId')
      const input = parse(stackingRulesInput, body)
      return mutate(ctx, async (tx) => {
        const current = await stored(projectKey)
        if (!current || current.value.id !== id) throw EngineError.notFound('stacking_rules', id, 'stackingRulesId')
        const next = { ...resolveStackingRules({ ...current.value, ...input }), id, updated_at: tx.nowIso }
        return tx.update('stacking_rules', current, next)
      })
    },
  }
}
