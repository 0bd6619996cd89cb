import { describe, expect, it } from 'vitest'
import { createEngine, type EngineOptions } from '../src'
import { engineContext } from '../src/engine'

/** The error createEngine throws for these options (as untyped input: hosts read them from config files). */
function rejection(options: unknown) {
  try {
    createEngine(options as EngineOptions)
  } catch (error) {
    return error
  }
  throw new Error('createEngine accepted the options')
}

describe('createEngine checks its options at once', () => {
  it('says a clock is an object with now() when given a function', () => {
    expect(rejection({ clock: () => new Date() })).toMatchObject({
      code: 400,
      key: 'invalid_engine_options',
      path: 'clock',
      message:
        'Invalid engine option: options.clock is a function, but a clock is an object with a now() method: pass { now: () => new Date() }',
    })
  })

  it.each([
    ['a clock without now', { clock: {} }, 'clock', 'options.clock must be an object with a now(): Date method'],
    ['an unknown time zone', { timezone: 'Mars/Olympus' }, 'timezone', 'not Mars/Olympus'],
    ['a time zone that is not a string', { timezone: 2 }, 'timezone', 'must be string but received 2'],
    ['an unknown rounding mode', { rounding: 'banker' }, 'rounding', 'must be one of half-up, half-even, down, up'],
    ['a negative maxRetries', { maxRetries: -1 }, 'maxRetries', 'must be ≥ 0'],
    ['a fractional maxRetries', { maxRetries: 1.5 }, 'maxRetries', 'must be an integer'],
    ['a negative loadHints', { loadHints: -1 }, 'loadHints', 'must be ≥ 0'],
    ['a zero token lifetime', { tokenTtlSeconds: 0 }, 'tokenTtlSeconds', 'must be ≥ 1'],
    ['an empty project id', { projectId: '' }, 'projectId', 'must not be empty'],
    ['a store without commit', { store: {} }, 'store', 'createMemoryStore()'],
    ['ids that are not a function', { ids: 'uuid' }, 'ids', 'must be a function (prefix) => id'],
    ['random that is not a function', { random: 0.5 }, 'random', 'seededRandom(42)'],
    ['stacking rules that are not an object', { stackingRules: 'strict' }, 'stackingRules', 'must be an object'],
    ['a misspelt option', { timeZone: 'UTC' }, 'timeZone', 'is not an engine option; use store, clock'],
    ['options that are not an object', 7, 'options', 'options must be an object'],
  ])('refuses %s, naming it', (_label, options, path, text) => {
    const error = rejection(options) as { path: string; details: string; code: number }
    expect(error).toMatchObject({ code: 400, path })
    expect(error.details).toContain(text)
  })

  it('checks the stacking rules option too, before any operation runs', () => {
    expect(rejection({ stackingRules: { redeemables_limit: 0 } })).toMatchObject({ code: 400 })
  })

  it('lists every wrong option in the details', () => {
    const error = rejection({ maxRetries: -1, rounding: 'x' }) as { details: string }
    expect(error.details.split('; ')).toHaveLength(2)
  })

  it('treats an option set to undefined as absent', () => {
    const engine = createEngine({ timezone: undefined, rounding: undefined })
    expect(engineContext(engine).config).toMatchObject({ timezone: 'UTC', rounding: 'half-up' })
  })
})
