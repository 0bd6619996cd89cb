import { describe, expect, it, vi } from 'vitest'

describe('examples/qualify.ts (the README recipe: show what they can use and earn, then apply the best)', () => {
  it('prints the offers, the points, the best stack and its redemption', async () => {
    const lines: string[] = []
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      lines.push(args.join(' '))
    })
    try {
      await import('../examples/qualify')
    } finally {
      log.mockRestore()
    }
    expect(lines).toEqual([
      'ANA15: $22.50 off',
      '$20 off shoes: $20.00 off',
      '$5 off everything: $5.00 off',
      'Paying the whole cart earns 150 points',
      'Best stack: ANA15 + $20 off shoes, $42.50 off',
      expect.stringMatching(/^Left out: CLUB-\w{4} \(gift cards and loyalty points are the customer’s money/),
      'Left out: $5 off everything (Applicable redeemables limit exceeded)',
      'Redeemed: SUCCESS, to pay $107.50',
    ])
  })
})
