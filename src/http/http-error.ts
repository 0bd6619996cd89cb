import { EngineError, type ErrorCode } from '../errors'

/** An error of the HTTP layer itself (docs/errors.md, HTTP): the route, the path or the body. */
export function httpError(id: { code: ErrorCode; key: string }, details: string, path?: string): EngineError {
  const message = {
    400: 'Bad request',
    404: 'Not found',
    405: 'Method not allowed',
    413: 'Payload too large',
    415: 'Unsupported media type',
  }[id.code as 400 | 404 | 405 | 413 | 415]
  return new EngineError({ ...id, message: message ?? 'Error', details, ...(path === undefined ? {} : { path }) })
}
