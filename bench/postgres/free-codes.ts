/**
 * `npx tsx bench/postgres/free-codes.ts` (not a test): a publication from a campaign holding 1,000,
 * 10,000 and 100,000 free codes on PostgreSQL (PROMO_PG_URL, else embedded), and the median time of
 * each query it sends (docs/storage.md#claims: the pick is an index range read, flat in the free codes).
 */
import pg from 'pg'
import { createEngine } from '../../src/engine'
import { seededRandom } from '../../src/ids'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import { createPostgresStore } from '../../src/postgres'
import type { Write } from '../../src/storage/ports'
import { server } from './server'

const RUNS = 40

async function main() {
  const db = await server()
  const pool = new pg.Pool({ connectionString: db.url, max: 4 })
  const times = new Map<string, number[]>()
  const timed = {
    async query(text: string, values?: unknown[]) {
      const started = performance.now()
      const r = await pool.query(text, values)
      const key = text.replace(/\s+/g, ' ').slice(0, 80)
      times.set(key, [...(times.get(key) ?? []), performance.now() - started])
      return r
    },
    connect: () => pool.connect(),
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0
  for (const n of [1_000, 10_000, 100_000]) {
    const store = createPostgresStore({ pool: timed as unknown as pg.Pool, schema: `free_codes_${n}` })
    await store.migrate()
    const engine = createEngine({ store, random: seededRandom(3) })
    const welcome = await engine.campaigns.create({
      name: 'Welcome',
      campaign_type: 'DISCOUNT_COUPONS',
      type: 'AUTO_UPDATE',
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
      vouchers_count: 0,
    })
    const random = seededRandom(n)
    const writes: Write[] = Array.from({ length: n }, (_, i) => ({
      op: 'put',
      collection: 'vouchers',
      expectedVersion: null,
      shape: currentShape('vouchers'),
      value: {
        id: `v_${Math.floor(random() * 1e12).toString(36)}${i}`,
        code: `F${i}`,
        campaign_id: welcome.id,
        holder_id: null,
        created_at: '2025-01-01T00:00:00.000Z',
        publish: { count: 0 },
        redemption: { quantity: null, redeemed_quantity: 0 },
      } as never,
    }))
    for (let i = 0; i < writes.length; i += 5000) await store.commit({ writes: writes.slice(i, i + 5000) })
    await pool.query(`ANALYZE "free_codes_${n}".vouchers`)
    times.clear()
    const ms: number[] = []
    for (let k = 0; k < RUNS; k++) {
      const started = performance.now()
      await engine.publications.create({ campaign: { name: 'Welcome' }, customer: { source_id: `p${k}` } })
      ms.push(performance.now() - started)
    }
    console.log(`${n} free codes: publication ${median(ms).toFixed(2)} ms (median of ${RUNS})`)
    for (const [query, t] of times) if (t.length >= RUNS / 2) console.log(`  ${median(t).toFixed(2)} ms  ${query}`)
  }
  await pool.end()
  await db.stop()
}

main().catch((e) => {
  console.error(e)
  process.exit(1)
})
