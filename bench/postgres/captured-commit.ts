import type pg from 'pg'

/**
 * One redemption's commit payload, captured from this checkout's engine on `pool` (migrated in the
 * default schema), and a way to replay it: `fresh()` is the payload with its inserted ids made new
 * each call, so replays insert instead of conflicting. Shared by commit-replay.ts and commit-perf.ts.
 * The order has `lines` lines (1 unless given; writes-decomposed.ts takes `LINES`).
 */
export async function captureRedemptionCommit(
  pool: pg.Pool,
  lines = 1,
): Promise<{
  payload: string
  inserted: string[]
  fresh: () => string
  /** Copies the code the payload increments into another schema's `vouchers`. */
  copyCodeTo: (schema: string) => Promise<void>
}> {
  let payload = ''
  const { createEngine } = await import('../../src/index')
  const { createPostgresStore } = await import('../../src/postgres/index')
  const recording = {
    query: (q: never, v?: never) => pool.query(q, v),
    connect: async () => {
      const c = await pool.connect()
      return {
        query: (q: { text?: string; values?: unknown[] }, v?: never) => {
          if (typeof q === 'object' && q.text?.includes('pe_commit(')) payload = String(q.values?.[0])
          return c.query(q as never, v)
        },
        release: (e?: boolean | Error) => c.release(e),
      }
    },
    end: () => pool.end(),
  }
  const engine = createEngine({ store: createPostgresStore({ pool: recording as never }) })
  await engine.raw.vouchers.create({
    code: 'R',
    type: 'DISCOUNT_VOUCHER',
    discount: { type: 'AMOUNT', amount_off: 100, effect: 'APPLY_TO_ORDER' },
    redemption: { quantity: 100_000_000 },
  })
  const body = {
    redeemables: [{ object: 'voucher' as const, id: 'R' }],
    order: {
      amount: 10_000 * lines,
      items: Array.from({ length: lines }, (_, i) => ({ product_id: `p${i + 1}`, quantity: 1, price: 10_000 })),
    },
    customer: { source_id: 'replayed' },
  }
  await engine.raw.redemptions.redeemStackable(body)
  await engine.raw.redemptions.redeemStackable(body)
  const parsed = JSON.parse(payload) as { steps: { rows: { op: string; id: string }[] }[] }
  const inserted = parsed.steps.flatMap((s) => s.rows.filter((r) => r.op === 'ins').map((r) => r.id))
  let k = 0
  const fresh = () => {
    k++
    let text = payload
    for (const id of inserted) text = text.split(id).join(`${id}_${k}`)
    return text
  }
  const copyCodeTo = async (schema: string) => {
    await pool.query(
      `INSERT INTO ${schema}.vouchers (id, value, version, shape) SELECT id, value, version, shape FROM promo_engine.vouchers`,
    )
  }
  return { payload, inserted, fresh, copyCodeTo }
}
