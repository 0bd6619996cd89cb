import type { CallOptions } from './call-options'
import type { Headers } from './operations/admin/auth'

type Same<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false

/** Ids, credentials headers and call options keep their types; everything else is a request body. */
type Kept<P> = [P] extends [string | null | undefined]
  ? true
  : Same<NonNullable<P>, CallOptions> extends true
    ? true
    : Same<NonNullable<P>, Headers>

type RawArgs<A extends unknown[]> = { [K in keyof A]: Kept<A[K]> extends true ? A[K] : unknown }

/**
 * The operations with every request body typed `unknown`, for hosts that pass a parsed JSON body
 * straight in (an HTTP handler, a queue consumer): the same functions, which parse and check every
 * body at run time and throw a 400 `EngineError` naming the bad field.
 */
export type RawOperations<T> = {
  [K in keyof T]: T[K] extends (...args: infer A) => infer R ? (...args: RawArgs<A>) => R : RawOperations<T[K]>
}
