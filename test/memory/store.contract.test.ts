import { describe, it } from 'vitest'
import { createMemoryStore } from '../../src/memory'
import { storeContract } from '../../src/testing'

describe('memory store: storage contract', () => {
  for (const c of storeContract(createMemoryStore)) it(c.name, c.run)
})
