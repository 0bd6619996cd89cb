export type { Engine, EngineOptions } from './engine'
export { createEngine, systemClock } from './engine'
export * from './errors'
export { createIdGenerator, ID_PREFIX, seededRandom, systemRandom } from './ids'
export { createMemoryStore, listRows } from './memory'
export * from './model'
export * from './money'
export type * from './ports'
export { NATURAL_KEYS } from './ports'
export {
  CODE_ATTEMPTS_PER_CODE,
  codeSpace,
  DEFAULT_CHARSET,
  DEFAULT_CODE_LENGTH,
  generateCode,
  generateUniqueCodes,
  type ResolvedCodeConfig,
  resolveCodeConfig,
} from './rules/codes'
