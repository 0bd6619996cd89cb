/**
 * Whether a client-side request's `origin` header is one the client application allows. An allowed
 * entry is a full origin (`https://shop.example.com:8443`, compared scheme, host and port), a bare
 * hostname (`shop.example.com`, any scheme and port), or `*` (any origin).
 */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  const parsed = parseOrigin(origin)
  for (const entry of allowed) {
    if (entry === '*') return true
    if (parsed === undefined) continue
    const wanted = parseOrigin(entry)
    if (wanted !== undefined && entry.includes('://')) {
      if (wanted.origin === parsed.origin) return true
    } else if (entry.toLowerCase() === parsed.hostname) {
      return true
    }
  }
  return false
}

function parseOrigin(value: string): { origin: string; hostname: string } | undefined {
  try {
    // A bare hostname has no scheme: parse it as https so the hostname comparison still works.
    const url = new URL(value.includes('://') ? value : `https://${value}`)
    if (url.origin === 'null') return undefined
    return { origin: url.origin, hostname: url.hostname }
  } catch {
    return undefined
  }
}
