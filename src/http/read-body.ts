import type { EngineError } from '../errors'
import { httpError } from './http-error'

/** A request's body as JSON (or a form on the token endpoints), read up to `maxBytes` (docs/http.md). */
export async function readBody(request: Request, maxBytes: number, formAllowed: boolean): Promise<unknown> {
  const declared = Number(request.headers.get('Content-Length') ?? '0')
  if (declared > maxBytes) throw tooLarge(maxBytes)
  const text = await readText(request, maxBytes)
  if (text.trim() === '') return undefined
  const type = (request.headers.get('Content-Type') ?? '').split(';')[0]?.trim().toLowerCase() ?? ''
  if (formAllowed && type === 'application/x-www-form-urlencoded') return Object.fromEntries(new URLSearchParams(text))
  if (type !== 'application/json' && !type.endsWith('+json')) {
    throw httpError(
      { code: 415, key: 'unsupported_media_type' },
      `The body must be JSON (Content-Type: application/json${formAllowed ? ' or application/x-www-form-urlencoded' : ''}); got ${type === '' ? 'no Content-Type' : type}`,
      'Content-Type',
    )
  }
  try {
    return JSON.parse(text)
  } catch (error) {
    throw httpError(
      { code: 400, key: 'invalid_json' },
      `The body is not valid JSON: ${(error as Error).message}`,
      'body',
    )
  }
}

async function readText(request: Request, maxBytes: number): Promise<string> {
  // A declared length bounds the body (the HTTP parser reads no more): read it whole, which on Node
  // adapters reads the socket's buffers directly instead of through a web stream. Without one, the
  // chunks are counted as they come so an endless body is cut at the limit.
  if (request.headers.has('Content-Length')) {
    const bytes = new Uint8Array(await request.arrayBuffer())
    if (bytes.byteLength > maxBytes) throw tooLarge(maxBytes)
    return decodeUtf8(bytes)
  }
  if (!request.body) return ''
  const reader = request.body.getReader()
  const chunks: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      throw tooLarge(maxBytes)
    }
    chunks.push(value)
  }
  return decodeUtf8(Buffer.concat(chunks))
}

/** Whole bodies only (never `stream: true`), so one decoder serves every request. */
const UTF8 = new TextDecoder('utf-8', { fatal: true })

function decodeUtf8(bytes: Uint8Array): string {
  try {
    return UTF8.decode(bytes)
  } catch {
    throw httpError({ code: 400, key: 'invalid_json' }, 'The body is not valid UTF-8', 'body')
  }
}

function tooLarge(maxBytes: number): EngineError {
  return httpError({ code: 413, key: 'payload_too_large' }, `The body must be at most ${maxBytes} bytes`, 'body')
}
