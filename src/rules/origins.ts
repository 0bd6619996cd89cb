/**
 * The origins a client application allows, each entry one of:
 * - `*`: any origin;
 * - a full origin `https://shop.example.com` or `http://localhost:8080` (scheme http or https, a
 *   host, an optional port; no path, query or credentials): compared scheme, host and port;
 * - a bare hostname `shop.example.com`: that host under any scheme and port;
 * - either form with `*.` as its first label (`https://*.example.com`, `*.example.com`): any
 *   subdomain of that host, at any depth, but not the host itself.
 */
export type OriginPattern =
  | { kind: 'any' }
  | { kind: 'host'; scheme: string | null; host: string; subdomains: boolean; port: string | null }

/** The pattern an `allowed_origins` entry names, or what is wrong with it (said to the caller as is). */
export function parseOriginPattern(entry: string): OriginPattern | { problem: string } {
  if (entry === '*') return { kind: 'any' }
  const full = entry.includes('://')
  const subdomains = /^(https?:\/\/)?\*\./i.test(entry)
  const rest = subdomains ? entry.replace('*.', '') : entry
  if (rest.includes('*')) return { problem: 'may use * only alone or as the first label of the host (*.example.com)' }
  const url = toUrl(full ? rest : `https://${rest}`)
  if (url === undefined || url.hostname === '') return { problem: 'is not an origin or a hostname' }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return { problem: 'must use the http or https scheme' }
  if (url.username !== '' || url.password !== '') return { problem: 'must not carry credentials' }
  if (full) {
    if (url.origin !== rest.toLowerCase()) {
      return { problem: 'must be an origin: scheme, host and optional port, without path, query or trailing /' }
    }
    return { kind: 'host', scheme: url.protocol, host: url.hostname, subdomains, port: url.port }
  }
  if (url.hostname !== rest.toLowerCase()) {
    return { problem: 'must be a hostname, or a full origin (with its scheme) to name a port or scheme' }
  }
  return { kind: 'host', scheme: null, host: url.hostname, subdomains, port: null }
}

/** Whether a client-side request's `origin` header is one the client application allows. */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  const url = toUrl(origin)
  for (const entry of allowed) {
    const pattern = parseOriginPattern(entry)
    if ('problem' in pattern) continue
    if (pattern.kind === 'any') return true
    if (url === undefined || url.origin === 'null') continue
    if (pattern.scheme !== null && (pattern.scheme !== url.protocol || pattern.port !== url.port)) continue
    const hostMatches = pattern.subdomains ? url.hostname.endsWith(`.${pattern.host}`) : url.hostname === pattern.host
    if (hostMatches) return true
  }
  return false
}

function toUrl(value: string): URL | undefined {
  try {
    return new URL(value)
  } catch {
    return undefined
  }
}
