export { createMemoryStore, listRows } from './store'
