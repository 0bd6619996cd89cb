import { describe, expect, it } from 'vitest'
import { originAllowed, parseOriginPattern } from '../../src/rules/origins'

describe('originAllowed', () => {
  it('matches a full origin by scheme, host and port', () => {
    expect(originAllowed('https://shop.example.com', ['https://shop.example.com'])).toBe(true)
    expect(originAllowed('https://shop.example.com:443', ['https://shop.example.com'])).toBe(true)
    expect(originAllowed('http://shop.example.com', ['https://shop.example.com'])).toBe(false)
    expect(originAllowed('https://shop.example.com:8443', ['https://shop.example.com'])).toBe(false)
  })

  it('matches a bare hostname entry on any scheme and port, case-insensitively', () => {
    expect(originAllowed('http://Shop.Example.com:3000', ['shop.example.com'])).toBe(true)
    expect(originAllowed('https://evil.example.com', ['shop.example.com'])).toBe(false)
    expect(originAllowed('https://shop.example.com.evil.io', ['shop.example.com'])).toBe(false)
  })

  it('allows anything with *, nothing with an empty list', () => {
    expect(originAllowed('https://anywhere.io', ['*'])).toBe(true)
    expect(originAllowed('https://anywhere.io', [])).toBe(false)
    expect(originAllowed('not a url', ['shop.example.com'])).toBe(false)
  })
})

describe('subdomain wildcards', () => {
  it('match any subdomain at any depth, never the apex or a look-alike', () => {
    const allowed = ['https://*.example.com']
    expect(originAllowed('https://shop.example.com', allowed)).toBe(true)
    expect(originAllowed('https://a.b.example.com', allowed)).toBe(true)
    expect(originAllowed('https://example.com', allowed)).toBe(false)
    expect(originAllowed('https://evilexample.com', allowed)).toBe(false)
    expect(originAllowed('https://shop.example.com.evil.io', allowed)).toBe(false)
    expect(originAllowed('http://shop.example.com', allowed)).toBe(false)
    expect(originAllowed('https://shop.example.com:8443', allowed)).toBe(false)
  })

  it('keep the port of a full origin and take any scheme and port without one', () => {
    expect(originAllowed('http://app.example.com:8080', ['http://*.example.com:8080'])).toBe(true)
    expect(originAllowed('http://app.example.com', ['http://*.example.com:8080'])).toBe(false)
    expect(originAllowed('http://app.example.com:3000', ['*.example.com'])).toBe(true)
    expect(originAllowed('http://example.com:3000', ['*.example.com'])).toBe(false)
  })
})

describe('parseOriginPattern', () => {
  it('reads the four forms', () => {
    expect(parseOriginPattern('*')).toEqual({ kind: 'any' })
    expect(parseOriginPattern('https://Shop.example.com:8443')).toEqual({
      kind: 'host',
      scheme: 'https:',
      host: 'shop.example.com',
      subdomains: false,
      port: '8443',
    })
    expect(parseOriginPattern('shop.example.com')).toMatchObject({ scheme: null, host: 'shop.example.com' })
    expect(parseOriginPattern('*.example.com')).toMatchObject({ host: 'example.com', subdomains: true })
  })

  it.each([
    ['https://shop.example.com/', 'without path'],
    ['https://shop.example.com/path', 'without path'],
    ['https://shop.example.com?q=1', 'without path'],
    ['https://user:pw@shop.example.com', 'credentials'],
    ['ftp://shop.example.com', 'http or https'],
    ['shop.example.com:8080', 'full origin'],
    ['shop.example.com/path', 'full origin'],
    ['https://shop.*.com', 'first label'],
    ['https://*shop.example.com', 'first label'],
    ['*.*.example.com', 'first label'],
    ['https://', 'not an origin'],
    ['http://[::1', 'not an origin'],
  ])('refuses %s, saying why', (entry, why) => {
    const pattern = parseOriginPattern(entry)
    expect(pattern).toHaveProperty('problem')
    expect((pattern as { problem: string }).problem).toContain(why)
  })
})
