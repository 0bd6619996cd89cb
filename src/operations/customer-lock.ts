import type { Customer } from '../model/customer'
import type { Stored } from '../ports'
import type { Tx } from './context'

/**
 * Serialises "does this customer hold a code of X yet?" decisions (join-once programs and campaigns).
 * That answer is read from a list, and two concurrent requests would each write a different code, so
 * nothing they write overlaps. Read the customer with this before the check and, when a new code is
 * written, write the customer back at that version: of two concurrent requests only the first
 * commits, the other re-reads and finds the code. Undefined when this transaction already writes the
 * customer: a new customer's insert conflicts on its `source_id`, and an earlier update names a
 * version read before the check, so either already serialises the decision.
 */
export async function readCustomerLock(tx: Tx, customerId: string): Promise<Stored<Customer> | undefined> {
  const pending = tx.writes.some(
    (w) => w.op === 'put' && w.collection === 'customers' && (w.value as Customer).id === customerId,
  )
  return pending ? undefined : tx.store.customers.get(customerId)
}
