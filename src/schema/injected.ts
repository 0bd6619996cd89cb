import { EngineError, quote } from '../errors'
import type { Clock, IdGenerator, RandomSource } from '../storage/ports'

/*
 * What a host's clock, id generator and random source return, checked each time the engine uses it:
 * calling them at createEngine would shift a seeded sequence. A wrong value fails the operation with
 * a 500 `EngineError` naming the option before anything is written, where it would otherwise store an
 * invalid date, collide with another entity (a misleading 409) or pick a character out of range.
 */

function wrong(option: 'clock' | 'ids' | 'random', what: string, rule: string): EngineError {
  return new EngineError({
    code: 500,
    key: 'invalid_engine_option_result',
    message: `Engine option ${option} gave a wrong value`,
    details: `options.${what}; ${rule}`,
    path: option,
  })
}

function shown(value: unknown): string {
  if (typeof value === 'string') return `"${quote(value, 40)}" (a string)`
  if (value instanceof Date) return 'an invalid Date'
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') return String(value)
  return value === null ? 'null' : typeof value
}

export function checkedClock(clock: Clock): Clock {
  return {
    now() {
      const now: unknown = clock.now()
      if (now instanceof Date && Number.isFinite(now.getTime())) return now
      throw wrong('clock', `clock.now() returned ${shown(now)}`, 'it must return a valid Date')
    },
  }
}

export function checkedRandom(random: RandomSource): RandomSource {
  return () => {
    const r: unknown = random()
    if (typeof r === 'number' && r >= 0 && r < 1) return r
    throw wrong('random', `random() returned ${shown(r)}`, 'it must return a number in [0, 1)')
  }
}

/** How many of the latest ids a generator gave are remembered to catch one given again. */
const REMEMBERED_IDS = 10_000

/**
 * An id must be a non-empty string not given before: a repeat is caught among the latest ids (every
 * id of one changeset among them), before it would clash with a stored entity as a 409.
 */
export function checkedIds(ids: IdGenerator): IdGenerator {
  const given = new Set<string>()
  return (prefix) => {
    const id: unknown = ids(prefix)
    if (typeof id !== 'string' || id === '') {
      throw wrong('ids', `ids("${prefix}") returned ${shown(id)}`, 'it must return a non-empty string')
    }
    if (given.has(id)) {
      throw wrong('ids', `ids("${prefix}") returned "${quote(id, 40)}" again`, 'every id it gives must be new')
    }
    given.add(id)
    if (given.size > REMEMBERED_IDS) given.delete(given.values().next().value as string)
    return id
  }
}

/** An id the generator gave that the store already holds (the generator restarted on the same data). */
export function takenId(collection: string, id: string): EngineError {
  return wrong(
    'ids',
    `ids() returned "${quote(id, 40)}", which ${collection} already holds`,
    'every id it gives must be new',
  )
}
