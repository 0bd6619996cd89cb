export { listRows } from './list'
export {
  createMemoryStore,
  type FaultStep,
  type MemoryStore,
  type MemoryStoreOptions,
  type MemoryStoreStats,
} from './memory-store'
