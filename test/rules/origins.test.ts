import { describe, expect, it } from 'vitest'
import { originAllowed } from '../../src/rules/origins'

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
