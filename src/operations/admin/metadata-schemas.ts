import type { CallOptions } from '../../call-options'
import { EngineError } from '../../errors'
import { ID_PREFIX } from '../../ids'
import type { ListEnvelope } from '../../model/common'
import type { DefaultMetadataSchema, MetadataPropertyDefinition, MetadataSchema } from '../../model/metadata-schema'
import { STANDARD_RELATED_OBJECTS } from '../../rules/metadata'
import { nonEmptyString } from '../../schema/common'
import { schemaInput } from '../../schema/metadata-schema'
import { parse } from '../../schema/parse'
import type { MetadataSchemasCreateParams } from '../../schema/requests'
import { type Context, mutate } from '../kernel/unit-of-work'

function isStandardRelatedObject(related: string): boolean {
  return (STANDARD_RELATED_OBJECTS as readonly string[]).includes(related)
}

function defaultSchema(related: string): DefaultMetadataSchema {
  return {
    id: null,
    related_object: related,
    properties: {},
    allow_defined_only: false,
    created_at: null,
    updated_at: null,
    object: 'metadata_schema',
  }
}

export function metadataSchemas(ctx: Context) {
  return {
    /**
     * Defines the metadata schema of a standard (`customer`, `voucher`, …) or custom object type.
     * One schema per `related_object`: a second one is a 409.
     */
    async create(body: MetadataSchemasCreateParams, _options?: CallOptions): Promise<MetadataSchema> {
      const input = parse(schemaInput, body)
      return mutate(ctx, async (tx) => {
        if (await tx.store.metadata_schemas.findBy('related_object', input.related_object)) {
          throw EngineError.conflict(
            'duplicate_metadata_schema',
            `A metadata schema for ${input.related_object} already exists`,
            'related_object',
          )
        }
        const properties: Record<string, MetadataPropertyDefinition> = {}
        for (const [name, d] of Object.entries(input.properties)) {
          properties[name] = {
            type: d.type,
            array: d.array ?? false,
            optional: d.optional ?? true,
            objectType: d.objectType ?? null,
            ...(d.eq === undefined ? {} : { eq: d.eq }),
            ...(d.exactLength === undefined ? {} : { exactLength: d.exactLength }),
          }
        }
        return tx.insert('metadata_schemas', {
          id: tx.id(ID_PREFIX.metadata_schema),
          related_object: input.related_object,
          properties,
          allow_defined_only: input.allow_defined_only ?? false,
          created_at: tx.nowIso,
          updated_at: null,
          object: 'metadata_schema',
        })
      })
    },

    /**
     * The schema of a `related_object` (the service interface's `resource` path parameter). A standard object type
     * exists whether or not a schema was defined for it, so without one it gets the empty default
     * schema (what enforcement applies: no properties, anything allowed); a custom one is 404.
     */
    async get(resource: string, _options?: CallOptions): Promise<MetadataSchema | DefaultMetadataSchema> {
      const related = parse(nonEmptyString, resource, 'resource')
      const found = await ctx.store.metadata_schemas.findBy('related_object', related)
      if (found) return found.value
      if (isStandardRelatedObject(related)) return defaultSchema(related)
      throw EngineError.notFound('metadata_schema', related, 'resource')
    },

    async list(_options?: CallOptions): Promise<ListEnvelope<'schemas', MetadataSchema>> {
      const page = await ctx.store.metadata_schemas.list({ order: { field: 'created_at', direction: 'asc' } })
      return { object: 'list', data_ref: 'schemas', schemas: page.data.map((s) => s.value), total: page.total }
    },
  }
}
