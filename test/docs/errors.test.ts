import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { SKIP_MESSAGES } from '../../src/rules/stacking/messages'

/** docs/errors.md lists every error key the source can give, and nothing the source never gives. */

const root = new URL('../../', import.meta.url).pathname

function sources(dir: string): string[] {
  return readdirSync(join(root, dir)).flatMap((name) => {
    const path = join(dir, name)
    if (statSync(join(root, path)).isDirectory()) return sources(path)
    return name.endsWith('.ts') ? [path] : []
  })
}

/** The places a key is written: an error's `key:`, a failure code, and the EngineError helpers' key arguments. */
const KEY_SITES = [
  /\bkey:\s*'([a-z][a-z0-9_]*)'/g,
  /\bfailure_code:\s*'([a-z][a-z0-9_]*)'/g,
  /\.conflict\(\s*'([a-z][a-z0-9_]*)'/g,
  /\b(?:unauthorized|forbidden)\(\s*'([a-z][a-z0-9_]*)'/g,
  /EngineError\.invalid\((?:[^()]|\([^()]*\))*?,\s*'([a-z][a-z0-9_]*)',?\s*\)/g,
]

const code = sources('src').map((file) => readFileSync(join(root, file), 'utf8'))
const used = new Set<string>(['not_found', 'invalid_payload', ...Object.keys(SKIP_MESSAGES)])
for (const text of code) for (const site of KEY_SITES) for (const m of text.matchAll(site)) used.add(m[1] ?? '')

const doc = readFileSync(join(root, 'docs/errors.md'), 'utf8')
const documented = new Set([...doc.matchAll(/^\| `([a-z][a-z0-9_]*)`/gm)].map((m) => m[1] ?? ''))

describe('docs/errors.md', () => {
  it('lists every key the source gives', () => {
    expect(used.size).toBeGreaterThan(50)
    expect([...used].filter((key) => !documented.has(key)).sort()).toEqual([])
  })

  it('lists no key the source never gives', () => {
    const all = code.join('\n')
    expect([...documented].filter((key) => !new RegExp(`\\b${key}\\b`).test(all)).sort()).toEqual([])
  })
})
