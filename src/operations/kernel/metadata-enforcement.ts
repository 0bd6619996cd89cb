import { EngineError } from '../../errors'
import type { Metadata } from '../../model/common'
import type { MetadataSchema } from '../../model/metadata-schema'
import { checkMetadata } from '../../rules/metadata'
import type { Store, Stored } from '../../storage/ports'

/**
 * Checks metadata being written on an object of `relatedObject` against the project's schema for it,
 * or throws 400 naming the property (`metadata.size`). Call it on every write, with the metadata the
 * object will have after the write (merged, on an update). Returns the metadata to store.
 */
export async function enforceMetadata(
  on: { store: Store },
  relatedObject: string,
  metadata: Metadata | undefined,
  path = 'metadata',
  /** The schema when the caller read it already (null: read, and there is none). */
  known?: Stored<MetadataSchema> | null,
): Promise<Metadata> {
  const schema =
    known !== undefined ? (known ?? undefined) : await on.store.metadata_schemas.findBy('related_object', relatedObject)
  const checked = checkMetadata(schema?.value, metadata ?? {}, path)
  if (checked.error) throw EngineError.invalid(checked.error.path, checked.error.message, 'invalid_metadata')
  return checked.metadata
}
