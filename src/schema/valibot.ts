import * as v from 'valibot'

/*
 * valibot, as every schema of src/ imports it (`npm run check:imports` refuses valibot elsewhere),
 * with one difference: its object and record schemas take any object, an array too, and read it by
 * its keys, so `[]` passed where a request body belongs would be read as `{}`. Ours refuse an array
 * with the type issue an object schema gives a string ("must be Object but received Array").
 */
export * from 'valibot'

type Run = (
  dataset: v.UnknownDataset,
  config: v.Config<v.BaseIssue<unknown>>,
) => v.OutputDataset<unknown, v.BaseIssue<unknown>>

function refusingArrays<S>(schema: S): S {
  const target = schema as unknown as { '~run': Run }
  const run = target['~run']
  target['~run'] = function (this: Parameters<typeof v._addIssue>[0], dataset, config) {
    if (!Array.isArray(dataset.value)) return run.call(this, dataset, config)
    // `_addIssue` turns the dataset into a failure in place, as valibot's own schemas do.
    v._addIssue(this, 'type', dataset, config)
    return dataset as unknown as v.OutputDataset<unknown, v.BaseIssue<unknown>>
  }
  return schema
}

export const object = ((...args: Parameters<typeof v.object>) => refusingArrays(v.object(...args))) as typeof v.object
export const strictObject = ((...args: Parameters<typeof v.strictObject>) =>
  refusingArrays(v.strictObject(...args))) as typeof v.strictObject
export const looseObject = ((...args: Parameters<typeof v.looseObject>) =>
  refusingArrays(v.looseObject(...args))) as typeof v.looseObject
export const objectWithRest = ((...args: Parameters<typeof v.objectWithRest>) =>
  refusingArrays(v.objectWithRest(...args))) as typeof v.objectWithRest
export const record = ((...args: Parameters<typeof v.record>) => refusingArrays(v.record(...args))) as typeof v.record
