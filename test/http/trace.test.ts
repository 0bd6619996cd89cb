import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { startServer } from '../../packages/server/src/server'

const env = { PROMO_APP_ID: 'app_traced', PROMO_APP_SECRET: 't'.repeat(32) }
const headers = {
  'X-App-Id': env.PROMO_APP_ID,
  'X-App-Token': env.PROMO_APP_SECRET,
  'Content-Type': 'application/json',
}

describe('per-request tracing (PROMO_TRACE_FILE, docs/http.md#tracing)', () => {
  it('writes the phases of requests carrying X-Trace-Id, and of no other', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'trace-'))
    const file = join(dir, 'trace.jsonl')
    try {
      const server = await startServer({ env, traceFile: file })
      const redeem = (trace?: string) =>
        fetch(`${server.url}/v1/redemptions`, {
          method: 'POST',
          headers: { ...headers, ...(trace ? { 'X-Trace-Id': trace } : {}) },
          body: JSON.stringify({
            customer: { source_id: `c-${trace ?? 'plain'}` },
            order: { amount: 1000 },
            redeemables: [{ object: 'voucher', id: 'TRACED' }],
          }),
        })
      const made = await fetch(`${server.url}/v1/vouchers`, {
        method: 'POST',
        headers,
        body: JSON.stringify({
          code: 'TRACED',
          type: 'DISCOUNT_VOUCHER',
          discount: { type: 'AMOUNT', amount_off: 100 },
        }),
      })
      expect(made.status).toBe(200)
      expect((await redeem('one')).status).toBe(200)
      expect((await redeem()).status).toBe(200)
      await server.close()

      const rows = readFileSync(file, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as [string, ...number[]])
      const spans = rows.filter((row) => row[0] !== 'gc')
      expect(spans.map((row) => row[0])).toEqual(['one'])
      const [, arrive = 0, reads = 0, readCalls = 0, commit = 0, , , answered = 0, written = 0] = spans[0] ?? []
      // A redemption reads through the store and commits once; its answer is built, then written.
      expect(readCalls).toBeGreaterThan(0)
      expect(reads).toBeGreaterThanOrEqual(0)
      expect(commit).toBeGreaterThan(0)
      expect(answered).toBeGreaterThanOrEqual(arrive)
      expect(written).toBeGreaterThanOrEqual(answered)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })
})
