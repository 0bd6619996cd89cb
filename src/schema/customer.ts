import { dateTime, metadata, opt } from './common'
import * as v from './valibot'

const address = v.object({
  city: opt(v.nullable(v.string())),
  state: opt(v.nullable(v.string())),
  line_1: opt(v.nullable(v.string())),
  line_2: opt(v.nullable(v.string())),
  country: opt(v.nullable(v.string())),
  postal_code: opt(v.nullable(v.string())),
})

export const customerInput = v.object({
  id: opt(v.string()),
  source_id: opt(v.nullable(v.string())),
  name: opt(v.nullable(v.string())),
  email: opt(v.nullable(v.string())),
  phone: opt(v.nullable(v.string())),
  birthdate: opt(v.nullable(dateTime)),
  address: opt(v.nullable(address)),
  description: opt(v.nullable(v.string())),
  metadata: opt(metadata),
})
