/**
 * `promo-engine/testing`: the storage contract suite any adapter can run.
 * `for (const c of storeContract(() => createMyStore())) it(c.name, c.run)`
 */
export type { ContractCase, StoreContractOptions } from './testing/store-contract'
export { storeContract } from './testing/store-contract'
