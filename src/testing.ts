/**
 * `promo-engine/testing`: the storage contract suite any adapter can run (docs/storage.md).
 * `for (const c of storeContract(({ indexes }) => createMyStore({ indexes }))) it(c.name, c.run)`
 */
export type { ContractCase, StoreContractOptions, StoreSetup } from './testing/store-contract'
export { storeContract } from './testing/store-contract'
