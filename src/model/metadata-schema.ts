import type { DateTime } from './common'

export interface MetadataPropertyDefinition {
  type: 'string' | 'number' | 'boolean' | 'date' | 'datetime' | 'object' | 'geopoint' | 'image_url'
  array: boolean
  optional: boolean
  objectType: string | null
  eq?: unknown[]
  exactLength?: number
}

export interface MetadataSchema {
  id: string
  related_object: string
  properties: Record<string, MetadataPropertyDefinition>
  allow_defined_only: boolean | null
  created_at: DateTime
  updated_at: DateTime | null
  object: 'metadata_schema'
}

/**
 * What `metadataSchemas.get` answers for a standard `related_object` the project has defined no schema
 * for: no properties, everything allowed; `id` and `created_at` are null (nothing is stored).
 */
export type DefaultMetadataSchema = Omit<MetadataSchema, 'id' | 'created_at'> & { id: null; created_at: null }
