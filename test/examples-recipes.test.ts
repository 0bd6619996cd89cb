import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it, vi } from 'vitest'

/**
 * The README's recipes: each is a file under examples/recipes/, shown word for word in the README,
 * and prints what the comment on its last `console.log` says.
 */

const dir = new URL('../examples/recipes/', import.meta.url)
const recipes = readdirSync(dir).filter((f) => f.endsWith('.ts'))
const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

describe('README recipes (examples/recipes/)', () => {
  it('has the six main jobs', () => {
    expect(recipes.sort()).toEqual([
      'gift-card.ts',
      'loyalty.ts',
      'promotion-tiers.ts',
      'referral.ts',
      'rollback.ts',
      'sessions.ts',
    ])
  })

  for (const file of recipes) {
    const source = readFileSync(new URL(file, dir), 'utf8')

    it(`${file} is in the README word for word`, () => {
      const block = readme.split('```ts\n').find((b) => b.startsWith(`// examples/recipes/${file}\n`))
      const shown = block?.slice(block.indexOf('\n') + 1, block.indexOf('```'))
      expect(shown).toBe(source.replace("from '../../src'", "from 'promo-engine'"))
    })

    it(`${file} prints what its comment says`, async () => {
      const expected = /console\.log\([^\n]*\) \/\/ (.+)\n?$/.exec(source)?.[1]
      expect(expected).toBeDefined()
      const lines: string[] = []
      const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
        lines.push(args.map(String).join(' '))
      })
      try {
        await import(`../examples/recipes/${file}`)
      } finally {
        log.mockRestore()
      }
      expect(lines).toEqual([expected])
    })
  }
})
