import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { ROUTES } from '../../src/http'

describe('docs/http.md', () => {
  // Table cells are padded to align; one space stands for any run of them.
  const doc = readFileSync(new URL('../../docs/http.md', import.meta.url), 'utf8').replace(/ +/g, ' ')

  it('lists every route of the table with its operation', () => {
    for (const route of ROUTES) {
      expect(doc, `${route.method} ${route.path}`).toContain(
        `| \`${route.method} ${route.path}\` | \`${route.operation}\` |`,
      )
    }
  })
})
