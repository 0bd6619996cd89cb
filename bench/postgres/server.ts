import { startEmbedded } from '../../test/postgres/embedded'

/**
 * The PostgreSQL a benchmark runs on: PROMO_PG_URL when set, else an embedded one, fsync off unless
 * `BENCH_FSYNC=on` (the default a production server runs).
 */
export async function server(): Promise<{ url: string; stop(): Promise<void> }> {
  if (process.env.PROMO_PG_URL) return { url: process.env.PROMO_PG_URL, stop: async () => {} }
  return startEmbedded({ fsync: process.env.BENCH_FSYNC === 'on' ? 'on' : 'off' })
}
