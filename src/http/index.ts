export type { CallOptions } from '../call-options'
export { type Answered, createFetchHandler, type FetchHandlerOptions } from './handler'
export { parseQuery } from './query'
export { type ArgumentSource, type HttpMethod, ROUTES, type Route } from './routes'
