import type { Changeset, Store } from '../../src/storage/ports'

/**
 * `inner` with every commit and every repository call (`collection.method`) reported before it runs:
 * what tests count (store calls per operation, bytes committed, writes by kind).
 */
export function watchedStore(inner: Store, on: { commit?(c: Changeset): void; call?(name: string): void }): Store {
  return new Proxy(inner, {
    get(target, prop, receiver) {
      const member = Reflect.get(target, prop, receiver)
      if (prop === 'commit') {
        return (c: Changeset) => {
          on.commit?.(c)
          return target.commit(c)
        }
      }
      if (typeof prop !== 'string' || member === null || typeof member !== 'object') return member
      return new Proxy(member as object, {
        get(repo, method, r) {
          const fn = Reflect.get(repo, method, r)
          if (typeof fn !== 'function') return fn
          return (...args: unknown[]) => {
            on.call?.(`${prop}.${String(method)}`)
            return fn.apply(repo, args)
          }
        },
      })
    },
  }) as Store
}
