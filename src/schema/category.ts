import * as v from './valibot'
import { nonEmptyString, nonNegativeInt, opt } from './common'

export const categoryInput = v.object({
  name: nonEmptyString,
  hierarchy: opt(nonNegativeInt),
})

export type CategoryInput = v.InferOutput<typeof categoryInput>
