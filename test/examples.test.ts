import { describe, expect, it, vi } from 'vitest'

describe('examples/embed.ts (the README embedding example)', () => {
  it('validates and redeems with the numbers the README prints', async () => {
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    try {
      await import('../examples/embed')
      expect(log.mock.calls).toEqual([
        [true, 3400, 8600],
        ['SUCCESS', 'PAID'],
      ])
    } finally {
      log.mockRestore()
    }
  })
})
