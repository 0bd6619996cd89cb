/**
 * `promo-engine/testing`: the storage contract suite any adapter can run (docs/storage.md).
 * `for (const c of storeContract(({ indexes }) => createMyStore({ indexes }))) it(c.name, c.run)`
 * `dumpStore(store)`: every collection as canonical JSON, to prove a refused call wrote nothing.
 */

export { canonicalJson, dumpStore } from './testing/dump'
export type { ContractCase, StoreContractOptions, StoreSetup } from './testing/store-contract'
export { storeContract } from './testing/store-contract'
