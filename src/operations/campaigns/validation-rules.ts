import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { ValidationRule, ValidationRuleAssignment } from '../../model/validation-rule'
import { nonEmptyString } from '../../schema/common'
import { parse } from '../../schema/parse'
import type { ValidationRulesCreateAssignmentParams, ValidationRulesCreateParams } from '../../schema/requests'
import * as v from '../../schema/valibot'
import { assignmentInput, checkBundleRules, checkRuleSet, validationRuleInput } from '../../schema/validation-rule'
import { type Context, mutate } from '../kernel/unit-of-work'
import { assignRules, readRules, relatedObject, retarget } from './rule-assignments'

export function validationRules(ctx: Context) {
  return {
    /**
     * Stores a validation rule after checking its structure (numbered rules, operators, `logic`);
     * the validation pipeline evaluates it later.
     */
    async create(body: ValidationRulesCreateParams, _options?: CallOptions): Promise<ValidationRule> {
      const input = parse(validationRuleInput, body)
      const rules = checkRuleSet(input.rules, 'rules')
      if (input.bundle_rules) checkBundleRules(input.bundle_rules, 'bundle_rules')
      return mutate(ctx, async (tx) => {
        const rule: ValidationRule = {
          id: tx.id(ID_PREFIX.validation_rule),
          name: input.name,
          error: input.error ?? null,
          type: input.type ?? 'expression',
          context_type: input.context_type ?? 'global',
          rules,
          ...(input.bundle_rules
            ? { bundle_rules: input.bundle_rules as NonNullable<ValidationRule['bundle_rules']> }
            : {}),
          applicable_to: {
            included: input.applicable_to?.included ?? [],
            excluded: input.applicable_to?.excluded ?? [],
            included_all: input.applicable_to?.included_all ?? false,
          },
          metadata: input.metadata ?? {},
          created_at: tx.nowIso,
          updated_at: null,
          assignments_count: 0,
          object: 'validation_rules',
        }
        return tx.insert('validation_rules', rule)
      })
    },

    async get(id: string, _options?: CallOptions): Promise<ValidationRule> {
      const found = await ctx.store.validation_rules.get(parse(nonEmptyString, id, 'validationRuleId'))
      if (!found) throw EngineError.notFound('validation_rule', id, 'validationRuleId')
      return found.value
    },

    /** Assigns a rule to a campaign, voucher, promotion tier, earning rule or reward assignment. */
    async createAssignment(
      ruleId: string,
      body: ValidationRulesCreateAssignmentParams,
      _options?: CallOptions,
    ): Promise<ValidationRuleAssignment> {
      const id = parse(nonEmptyString, ruleId, 'validationRuleId')
      const input = parse(assignmentInput(body), body)
      return mutate(ctx, async (tx) => {
        const related = await relatedObject(tx, input.related_object_type, input.related_object_id)
        const rules = await readRules(tx.store, [id])
        const [made] = await assignRules(
          tx,
          [{ ruleId: id, relatedObjectType: input.related_object_type, relatedObjectId: related.id }],
          rules,
        )
        const rule = rules.get(id)
        if (related.tier && rule) await retarget(tx, related.tier, rule.value)
        return made as ValidationRuleAssignment
      })
    },

    /** The assignments of one object (what the validation pipeline evaluates for it). */
    async listAssignments(relatedObjectId: string, _options?: CallOptions): Promise<ValidationRuleAssignment[]> {
      const id = parse(v.string(), relatedObjectId, 'relatedObjectId')
      const page = await ctx.store.validation_rule_assignments.list({ where: { related_object_id: id } })
      return page.data.map((s) => s.value)
    },
  }
}
