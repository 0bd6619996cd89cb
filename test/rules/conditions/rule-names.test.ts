import { describe, expect, it } from 'vitest'
import type { RuleDefinition } from '../../../src/model/validation-rule'
import { evaluateRules } from '../../../src/rules/conditions/evaluate-rules'
import { SUPPORTED_RULE_NAMES } from '../../../src/rules/conditions/rule-names'
import { baseContext } from './fixtures'

/** Why the evaluator failed a rule with this name, if it did not know it. */
function unknownTo(name: string): string | undefined {
  const def: RuleDefinition = { name, property: 'color', conditions: { $is: ['nothing'] } }
  const reasons = evaluateRules({ '1': def }, baseContext()).failures.map((f) => f.reason)
  return reasons.find((r) => r === 'unknown_rule' || r === 'unsupported_rule')
}

// The request schema refuses every name outside SUPPORTED_RULE_NAMES: the list must be exactly what
// the evaluator answers, or a valid rule would be refused or a dead one accepted.
describe('SUPPORTED_RULE_NAMES is what the evaluator answers', () => {
  it.each(SUPPORTED_RULE_NAMES.map((name) => [name]))('evaluates %s', (name) => {
    expect(unknownTo(name)).toBeUndefined()
  })

  it.each([['order.amunt'], ['order.items'], ['product.discount_applicable'], ['redemption.api_key']])(
    'does not know %s',
    (name) => {
      expect(SUPPORTED_RULE_NAMES).not.toContain(name)
      expect(unknownTo(name)).toBeDefined()
    },
  )
})
