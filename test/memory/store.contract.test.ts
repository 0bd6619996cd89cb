import { describe, it } from 'vitest'
import { createMemoryStore } from '../../src/memory'
import { storeContract } from '../../src/testing'

describe('memory store: storage contract', () => {
  for (const c of storeContract((setup) => createMemoryStore(setup))) it(c.name, c.run)
})
