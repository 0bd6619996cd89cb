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

describe('examples/checkout.ts (npm run demo)', () => {
  it('runs the whole checkout and prints, for each step, what happened and why', async () => {
    const lines: string[] = []
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      lines.push(args.join(' '))
    })
    const table = vi.spyOn(console, 'table').mockImplementation((rows: unknown) => {
      lines.push(JSON.stringify(rows))
    })
    try {
      await import('../examples/checkout')
    } finally {
      log.mockRestore()
      table.mockRestore()
    }
    const text = lines.join('\n')
    expect(text).toContain(
      'valid=false, because 2 of 5 redeemables are inapplicable and valid is true only when none is; in PARTIAL mode the 3 others still apply',
    )
    expect(text).toContain('Order: amount $285.00, discounts $67.00, gift card pays $20.00, to pay $198.00')
    expect(text).toContain('stored value spent like a payment, not a discount')
    expect(text).toContain(
      'Stack "Autumn stack" alone: $10 off shoes APPLICABLE, 5% off over $300 INAPPLICABLE; discounts $10.00',
    )
    expect(text).toContain('order_rules_violated: Spend over $300 to get 5% off.')
    expect(text).toContain('voucher_expired: voucher expired')
    expect(text).toMatch(/Ana joined Runners club: card RUN-\w{4} with 50 points; tier Bronze/)
    expect(text).toContain(
      'CREATED, to pay $198.00; the request said CREATED, so nothing is paid and no points are earned yet',
    )
    expect(text).toMatch(
      /Paid \$198\.00: card RUN-\w{4} now has 248 points; tier Bronze → Silver, because the order becoming PAID/,
    )
    expect(text).toContain('fired the order.paid earning rule (+198: 1 point per $1 paid)')
    expect(text).toContain('Reward "Club mug" for 100 points: balance 148')
    expect(text).toContain(
      'order CANCELED; gift card balance $50.00; WELCOME20 used 0 times, because a rollback gives back',
    )
    expect(text).toContain(
      'Kept: the 198 points order-1001 earned when it was paid (card balance still 148), because earning is its own transaction',
    )
    expect(text).toContain('src/operations/checkout/rollback-stackable.ts')
    expect(text).toContain('customer.loyalty.tier.joined')
    expect(text).toContain('customer.loyalty.tier.upgraded')
  })
})

describe('the README embedding example', () => {
  it('is examples/embed.ts, word for word (so the suite runs what the README shows)', async () => {
    const { readFile } = await import('node:fs/promises')
    const readme = await readFile(new URL('../README.md', import.meta.url), 'utf8')
    const block = /## Embedding\n\n```ts\n([\s\S]*?)```/.exec(readme)?.[1]
    const embed = await readFile(new URL('../examples/embed.ts', import.meta.url), 'utf8')
    expect(embed).toBe(block?.replace("from 'promo-engine'", "from '../src'"))
  })
})
