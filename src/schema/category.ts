import { nonEmptyString, nonNegativeInt, opt } from './common'
import * as v from './valibot'

export const categoryInput = v.object({
  name: nonEmptyString,
  hierarchy: opt(nonNegativeInt),
})

export type CategoryInput = v.InferOutput<typeof categoryInput>
