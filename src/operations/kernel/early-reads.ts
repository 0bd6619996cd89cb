/**
 * Marks a read that is started now and awaited later, or never when the operation fails first
 * (docs/storage.md#reads-started-early). Whoever awaits it still gets its rejection; one nobody
 * awaits any more (the database failed an earlier read of the same operation) is not an unhandled
 * rejection, which ends a Node process. Every promise an operation keeps for later (per-transaction
 * caches, prefetches) goes through here when it is made.
 */
export function startEarly<T>(read: Promise<T>): Promise<T> {
  read.catch(() => undefined)
  return read
}
