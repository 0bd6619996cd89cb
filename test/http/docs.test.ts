import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { createFetchHandler, ROUTES } from '../../src/http'
import { testEngine } from '../support/engine'

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

  it('tells the truth about every SDK method: routed ones reach an operation, the others get their 404 or 405', async () => {
    const { engine } = testEngine({ authentication: 'keys' })
    const handler = createFetchHandler(engine)
    const server = await engine.auth.createApplication({ family: 'server' })
    const client = await engine.auth.createApplication({ family: 'client', allowed_origins: ['*'] })
    const rows = [...doc.matchAll(/^\| `([\w.]+)` \| `(\w+) ([^`]+)`(?: or `[^`]+`)? \| (.+?) \|$/gm)]
    expect(rows.length).toBe(179)
    for (const [, name, method, path, status] of rows as unknown as [string, string, string, string, string][]) {
      const keys = path.startsWith('/client/')
        ? { 'X-Client-Application-Id': client.app_id, 'X-Client-Token': client.secret, Origin: 'https://a.example' }
        : { 'X-App-Id': server.app_id, 'X-App-Token': server.secret }
      const res = await handler(
        new Request(`http://engine.test${path.replaceAll('{id}', 'x1')}`, {
          method,
          headers: { ...keys, 'Content-Type': 'application/json' },
          ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }),
        }),
      )
      const { key } = (await res.json().catch(() => ({}))) as { key?: string }
      if (status.startsWith('routed')) {
        expect(['endpoint_not_found', 'method_not_allowed'], name).not.toContain(key)
      } else {
        expect(`${res.status} ${key}`, name).toBe(status.replaceAll('`', ''))
      }
    }
  })
})
