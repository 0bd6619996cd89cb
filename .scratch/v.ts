import * as v from 'valibot'
console.log(v.safeParse(v.object({a: v.optional(v.string())}), []).success, v.safeParse(v.strictObject({a: v.optional(v.string())}), []).success, v.safeParse(v.looseObject({}), []).success, v.safeParse(v.record(v.string(), v.unknown()), []).success)
