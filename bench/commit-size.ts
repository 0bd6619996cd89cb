/**
 * Bytes a redemption commits (JSON of its changeset), for 5 redeemables over 10 and 100 order lines,
 * beside the JSON of the order itself. `npx tsx bench/commit-size.ts`
 */
import { createEngine } from '../src/engine'
import { seededRandom } from '../src/ids'
import { createMemoryStore } from '../src/memory'
import type { Changeset } from '../src/storage/ports'
import { fiveRedeemables } from '../test/support/shops'

async function measure(lines: number) {
  const memory = createMemoryStore()
  let bytes = 0
  const commit = (c: Changeset) => {
    bytes = JSON.stringify(c).length
    return memory.commit(c)
  }
  const store = { ...memory, commit }
  const engine = createEngine({ store, random: seededRandom(9) })
  await engine.customers.create({ source_id: 'ana' })
  const redeemables = await fiveRedeemables(engine)
  const order = {
    items: Array.from({ length: lines }, (_, i) => ({ source_id: `p${i}`, quantity: 1 + (i % 3), price: 1000 + i })),
  }
  await engine.redemptions.redeemStackable({
    customer: { source_id: 'ana' },
    order,
    redeemables,
  })
  const redemption = await memory.orders.list({ limit: 1 })
  const orderBytes = JSON.stringify(redemption.data[0]?.value).length
  console.log(
    `| ${lines} | ${bytes.toLocaleString('en-US')} | ${orderBytes.toLocaleString('en-US')} | ${(bytes / orderBytes).toFixed(1)}× |`,
  )
}

async function main() {
  console.log('| order lines | bytes committed | stored order (bytes) | ratio |')
  console.log('| ---: | ---: | ---: | ---: |')
  await measure(10)
  await measure(100)
}

main()
