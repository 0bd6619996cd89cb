import { createHmac, timingSafeEqual } from 'node:crypto'

/**
 * Signed file links (docs/http.md#asynchronous-actions-and-export-files): a file's url carries
 * `expires` (Unix seconds) and `signature`, an HMAC-SHA256 of the file id and that instant under a
 * server secret, so whoever holds the link may download the file until then without the API keys.
 */

export interface FileLink {
  expires: number
  signature: string
}

function mac(secret: string, fileId: string, expires: number): Buffer {
  return createHmac('sha256', secret).update(`${fileId}\n${expires}`).digest()
}

export function signFileLink(secret: string, fileId: string, expires: number): FileLink {
  return { expires, signature: mac(secret, fileId, expires).toString('base64url') }
}

export type LinkCheck = 'valid' | 'malformed' | 'forged' | 'expired'

/**
 * Checks a link's query values against the file id at `nowSeconds`. The signature is compared in
 * constant time and before the expiry, so a changed expiry is a forgery, not an expired link.
 */
export function checkFileLink(
  secret: string,
  fileId: string,
  link: { expires?: unknown; signature?: unknown },
  nowSeconds: number,
): LinkCheck {
  const { expires, signature } = link
  if (typeof expires !== 'string' || !/^\d{1,15}$/.test(expires)) return 'malformed'
  if (typeof signature !== 'string' || !/^[A-Za-z0-9_-]{43}$/.test(signature)) return 'malformed'
  const expected = mac(secret, fileId, Number(expires))
  if (!timingSafeEqual(Buffer.from(signature, 'base64url'), expected)) return 'forged'
  return Number(expires) <= nowSeconds ? 'expired' : 'valid'
}
