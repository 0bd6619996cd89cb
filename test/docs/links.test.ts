import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

/**
 * The docs hold together: every relative link in README.md and docs/ resolves (the file, and the
 * heading for a `#anchor`), every `docs/….md#anchor` a source comment cites exists, and no comment or
 * doc cites a file outside the repository.
 */

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..')

function files(dir: string, ext: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(join(ROOT, dir))) {
    const path = join(dir, name)
    if (statSync(join(ROOT, path)).isDirectory()) out.push(...files(path, ext))
    else if (name.endsWith(ext)) out.push(path)
  }
  return out
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function anchors(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  let fenced = false
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) fenced = !fenced
    const heading = fenced ? null : /^#{1,6}\s+(.*?)\s*#*$/.exec(line)
    if (!heading) continue
    const base = (heading[1] ?? '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/\s/g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

/** Problems with one `file#anchor` target, relative to the repository root; empty when it resolves. */
function check(target: string, from: string): string[] {
  const [path = '', anchor] = target.split('#')
  const file = path === '' ? from : relative(ROOT, resolve(ROOT, dirname(from), path))
  if (file.startsWith('..')) return [`${from}: ${target} points outside the repository`]
  if (!existsSync(join(ROOT, file))) return [`${from}: ${target} names no file`]
  if (anchor === undefined) return []
  if (!file.endsWith('.md')) return [`${from}: ${target} has an anchor on a file that is not markdown`]
  if (!anchors(readFileSync(join(ROOT, file), 'utf8')).has(anchor)) return [`${from}: ${target} names no heading`]
  return []
}

const markdown = ['README.md', ...files('docs', '.md')]

describe('relative links in README.md and docs/', () => {
  it('resolve to a file and, with an anchor, to a heading', () => {
    const problems: string[] = []
    let links = 0
    for (const file of markdown) {
      const text = readFileSync(join(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '')
      for (const m of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const target = m[1] ?? ''
        if (/^[a-z]+:/i.test(target)) continue
        links++
        problems.push(...check(target, file))
      }
    }
    expect(problems).toEqual([])
    expect(links).toBeGreaterThan(10)
  })
})

describe('citations in source comments and examples', () => {
  const sources = [...files('src', '.ts'), ...files('examples', '.ts')]

  it('name docs that exist, with headings that exist', () => {
    const problems: string[] = []
    let citations = 0
    for (const file of sources) {
      const text = readFileSync(join(ROOT, file), 'utf8')
      for (const m of text.matchAll(/\bdocs\/[\w./-]+\.md(?:#[\w-]+)?/g)) {
        citations++
        problems.push(...check(m[0], '.').map((p) => `${file}: ${p}`))
      }
    }
    expect(problems).toEqual([])
    expect(citations).toBeGreaterThan(50)
  })

  it('cite nothing outside the repository', () => {
    const outside = /§|\bE-\d{2}\b|semantics\.md|reference\/|\.\.\/shared|\breference (examples|semantics)/
    const problems: string[] = []
    const scanned = [
      ...['src', 'test', 'examples', 'bench'].flatMap((dir) => files(dir, '.ts')),
      ...markdown,
      'tsup.config.ts',
      'vitest.config.ts',
      '.dependency-cruiser.cjs',
    ].filter((file) => !file.startsWith('bench/peers/node_modules') && file !== 'test/docs/links.test.ts')
    for (const file of scanned) {
      readFileSync(join(ROOT, file), 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (outside.test(line)) problems.push(`${file}:${i + 1}: ${line.trim()}`)
        })
    }
    expect(problems).toEqual([])
  })
})
