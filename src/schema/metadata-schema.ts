import { hasType, METADATA_TYPES } from '../rules/metadata'
import { nonEmptyString, nonNegativeInt, opt } from './common'
import * as v from './valibot'

// `v.object` (not strict) drops keys outside the definition: the service interface's "unknown properties are
// omitted from the response" for the schema object.
export const propertyDefinition = v.pipe(
  v.object({
    type: v.picklist(METADATA_TYPES, `must be one of ${METADATA_TYPES.join(', ')}`),
    array: opt(v.boolean()),
    optional: opt(v.boolean()),
    objectType: opt(v.nullable(v.string())),
    eq: opt(v.pipe(v.array(v.unknown()), v.minLength(1, 'must list at least one allowed value'))),
    exactLength: opt(nonNegativeInt),
  }),
  v.check((d) => d.exactLength === undefined || d.type === 'string', 'exactLength applies to string properties only'),
  v.check((d) => (d.eq ?? []).every((x) => hasType(d.type, x)), 'eq values must have the property type'),
)

export const schemaInput = v.object({
  related_object: nonEmptyString,
  properties: v.record(nonEmptyString, propertyDefinition),
  allow_defined_only: opt(v.nullable(v.boolean())),
})
