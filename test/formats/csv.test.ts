import { describe, expect, it } from 'vitest'
import { csvField, csvLines } from '../../src/formats/csv'

describe('csvLines (RFC 4180)', () => {
  it('quotes fields with a comma, a quote or a line break and doubles quotes', () => {
    expect(csvField('plain')).toBe('plain')
    expect(csvField('a,b')).toBe('"a,b"')
    expect(csvField('say "hi"')).toBe('"say ""hi"""')
    expect(csvField('line\nbreak')).toBe('"line\nbreak"')
    expect(csvField('cr\rhere')).toBe('"cr\rhere"')
  })

  it('writes empty fields for null, JSON for objects, CRLF line ends', () => {
    expect(
      csvLines([
        ['id', 'n', 'x', 'd'],
        ['r_1', 5, null, { a: 1, b: 'c' }],
      ]),
    ).toBe('id,n,x,d\r\nr_1,5,,"{""a"":1,""b"":""c""}"\r\n')
    expect(csvLines([['id']])).toBe('id\r\n')
  })
})
