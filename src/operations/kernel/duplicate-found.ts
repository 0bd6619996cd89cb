import { EngineError } from '../../errors'

/** 409 for a natural key already taken (the hosted service's `duplicate_found`), naming the field. */
export function duplicateFound(resourceType: string, path: string, value: string): EngineError {
  return new EngineError({
    code: 409,
    key: 'duplicate_found',
    message: 'Duplicated resource found',
    details: `A ${resourceType} with ${path.split('.').at(-1) ?? path} ${JSON.stringify(value)} already exists`,
    path,
    resource_type: resourceType,
  })
}
