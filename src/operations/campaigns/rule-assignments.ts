import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { PromotionTier } from '../../model/promotion'
import type { ValidationRule, ValidationRuleAssignment } from '../../model/validation-rule'
import { offerTargets } from '../../rules/qualifications'
import type { ASSIGNABLE_OBJECTS } from '../../schema/validation-rule'
import type { Store, Stored } from '../../storage/ports'
import type { Tx } from '../kernel/unit-of-work'

export type AssignableObject = (typeof ASSIGNABLE_OBJECTS)[number]

/** One assignment to make: the rule, the object it guards, and the request path that named the rule. */
export interface AssignmentRequest {
  ruleId: string
  relatedObjectType: AssignableObject
  relatedObjectId: string
  /** Where the rule id came from in the request, for the error of an unknown rule. */
  path?: string
  /** The object is created in this same changeset, so it cannot have an assignment yet. */
  relatedIsNew?: true
}

/**
 * Writes assignments in `tx`. Each rule's `assignments_count` is bumped once per request, which also
 * makes the rule's version the lock that serialises concurrent assignments of it: two requests
 * assigning the same rule to the same object conflict at commit, and the retry sees the duplicate.
 * Linear in the requests: the rules are read in one batch, duplicates within the call are found by
 * key, and an object created by this same changeset (`relatedIsNew`) has no stored assignment to
 * look for.
 */
export async function assignRules(
  tx: Tx,
  requests: readonly AssignmentRequest[],
  /** The rules, when the caller read them already (`readRules`). */
  known?: ReadonlyMap<string, Stored<ValidationRule>>,
): Promise<ValidationRuleAssignment[]> {
  const found =
    known ??
    (await readRules(
      tx.store,
      requests.map((r) => r.ruleId),
    ))
  const rules = new Map<string, { stored: Stored<ValidationRule>; count: number }>()
  const made: ValidationRuleAssignment[] = []
  const pairs = new Set<string>()
  for (const request of requests) {
    let rule = rules.get(request.ruleId)
    if (!rule) {
      const stored = found.get(request.ruleId)
      if (!stored) throw EngineError.notFound('validation_rule', request.ruleId)
      rule = { stored, count: stored.value.assignments_count ?? 0 }
      rules.set(request.ruleId, rule)
    }
    const pair = JSON.stringify([request.ruleId, request.relatedObjectId])
    const held =
      pairs.has(pair) ||
      (request.relatedIsNew !== true &&
        (
          await tx.store.validation_rule_assignments.list({
            where: { rule_id: request.ruleId, related_object_id: request.relatedObjectId },
            limit: 1,
          })
        ).total > 0)
    if (held) {
      throw EngineError.conflict(
        'duplicate_found',
        `Validation rule ${request.ruleId} is already assigned to ${request.relatedObjectType} ${request.relatedObjectId}`,
        request.path ?? 'related_object_id',
      )
    }
    const assignment: ValidationRuleAssignment = {
      id: tx.id(ID_PREFIX.validation_rule_assignment),
      rule_id: request.ruleId,
      related_object_id: request.relatedObjectId,
      related_object_type: request.relatedObjectType,
      created_at: tx.nowIso,
      object: 'validation_rules_assignment',
    }
    tx.insert('validation_rule_assignments', assignment)
    made.push(assignment)
    pairs.add(pair)
    rule.count++
  }
  for (const { stored, count } of rules.values()) {
    tx.update('validation_rules', stored, { ...stored.value, assignments_count: count })
  }
  return made
}

/** The rules of the given ids that exist, by id, in one read. */
export async function readRules(store: Store, ids: readonly string[]): Promise<Map<string, Stored<ValidationRule>>> {
  const unique = [...new Set(ids)]
  if (unique.length === 0) return new Map()
  return new Map((await store.validation_rules.getMany(unique)).map((s) => [s.value.id, s]))
}

/**
 * A promotion tier's target keys after a rule is assigned to it (docs/qualifications.md#candidates):
 * from every rule it is assigned, so a qualification finds it by what they target. Rules do not
 * change once created, so the keys change only here and when the tier is created.
 */
export async function retarget(tx: Tx, tier: Stored<PromotionTier>, added: ValidationRule): Promise<void> {
  const { rules } = await assignedRules(tx.store, [tier.value.id])
  tx.update('promotion_tiers', tier, { ...tier.value, targets: offerTargets([...rules, added]) })
}

/** Resolves the object an assignment names to its id (a voucher may be named by code), or 404. */
export async function relatedObject(
  tx: Tx,
  type: AssignableObject,
  id: string,
): Promise<{ id: string; tier?: Stored<PromotionTier> }> {
  const found = await (async () => {
    switch (type) {
      case 'campaign':
        return (await tx.store.campaigns.get(id)) ?? (await tx.store.campaigns.findBy('name', id))
      case 'voucher':
        return (await tx.store.vouchers.get(id)) ?? (await tx.store.vouchers.findBy('code', id))
      case 'promotion_tier':
        return tx.store.promotion_tiers.get(id)
      case 'earning_rule':
        return tx.store.earning_rules.get(id)
      case 'reward_assignment':
        return tx.store.reward_assignments.get(id)
      default: {
        const _never: never = type
        return _never
      }
    }
  })()
  if (!found) throw EngineError.notFound(type, id)
  return type === 'promotion_tier'
    ? { id: found.value.id, tier: found as Stored<PromotionTier> }
    : { id: found.value.id }
}

/**
 * The validation rules assigned to any of the given objects (a voucher and its campaign, a promotion
 * tier, a reward assignment), each rule once, in assignment order.
 */
export async function rulesAssignedTo(
  store: Store,
  relatedIds: readonly (string | null | undefined)[],
): Promise<ValidationRule[]> {
  return (await assignedRules(store, relatedIds)).rules
}

/**
 * The assignments to the given objects (oldest first) and the rules they assign. `early`: the rules
 * a caller started reading with the assignments, by the ids it expects them to name
 * (docs/postgres.md#loads); used only when the assignments name exactly those, else read after them.
 */
export async function assignedRules(
  store: Store,
  relatedIds: readonly (string | null | undefined)[],
  early?: { ids: readonly string[]; rules: Promise<Stored<ValidationRule>[]> },
): Promise<{ assignments: ValidationRuleAssignment[]; rules: ValidationRule[] }> {
  const ids = relatedIds.filter((id): id is string => typeof id === 'string')
  if (ids.length === 0) return { assignments: [], rules: [] }
  const assignments = await store.validation_rule_assignments.list({
    where: { related_object_id: { in: ids } },
    order: { field: 'created_at', direction: 'asc' },
    count: false,
  })
  const ruleIds = [...new Set(assignments.data.map((a) => a.value.rule_id))]
  const rules =
    ruleIds.length === 0
      ? []
      : early && early.ids.length === ruleIds.length && early.ids.every((id, i) => id === ruleIds[i])
        ? await early.rules
        : await store.validation_rules.getMany(ruleIds)
  return { assignments: assignments.data.map((a) => a.value), rules: rules.map((r) => r.value) }
}
