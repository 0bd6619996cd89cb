import { describe, expect, it } from 'vitest'
import { EngineError, isEngineError, quote } from '../src/errors'

describe('EngineError', () => {
  it('serialises to exactly {code, key, message, details, request_id}', () => {
    const error = new EngineError({ code: 422, key: 'quantity_exceeded', message: 'Quantity exceeded' })
    expect(Object.keys(error.toJSON())).toEqual(['code', 'key', 'message', 'details', 'request_id'])
    expect(error.toJSON()).toStrictEqual({
      code: 422,
      key: 'quantity_exceeded',
      message: 'Quantity exceeded',
      details: 'Quantity exceeded',
      request_id: null,
    })
    expect(JSON.parse(JSON.stringify(error))).toStrictEqual(error.toJSON())
  })

  it('keeps details, path and request_id apart; only request_id reaches the JSON', () => {
    const error = new EngineError({
      code: 400,
      key: 'invalid_payload',
      message: 'Invalid payload',
      details: 'Property .order.amount must be a number',
      path: 'order.amount',
      request_id: 'req_1',
    })
    expect(error.path).toBe('order.amount')
    expect(error.toJSON()).toStrictEqual({
      code: 400,
      key: 'invalid_payload',
      message: 'Invalid payload',
      details: 'Property .order.amount must be a number',
      request_id: 'req_1',
    })
    error.request_id = 'req_2'
    expect(error.toJSON().request_id).toBe('req_2')
  })

  it('adds resource_id and resource_type only when set', () => {
    const error = new EngineError({
      code: 404,
      key: 'not_found',
      message: 'Resource not found',
      resource_id: 'v_1',
      resource_type: 'voucher',
    })
    expect(Object.keys(error.toJSON())).toEqual([
      'code',
      'key',
      'message',
      'details',
      'request_id',
      'resource_id',
      'resource_type',
    ])
    const onlyType = new EngineError({ code: 404, key: 'not_found', message: 'x', resource_type: 'voucher' })
    expect(onlyType.toJSON()).toStrictEqual({
      code: 404,
      key: 'not_found',
      message: 'x',
      details: 'x',
      request_id: null,
      resource_type: 'voucher',
    })
  })

  it('is an Error with its name, message and stack', () => {
    const error = new EngineError({ code: 409, key: 'k', message: 'Conflict' })
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('EngineError')
    expect(error.message).toBe('Conflict')
    expect(typeof error.stack).toBe('string')
    expect(isEngineError(error)).toBe(true)
    expect(isEngineError(new Error('Conflict'))).toBe(false)
    expect(isEngineError({ code: 409, key: 'k', message: 'Conflict' })).toBe(false)
  })
})

describe('EngineError.invalid', () => {
  it('is a 400 naming the field path in details and path', () => {
    const error = EngineError.invalid('redeemables[1].id', 'is required')
    expect(error.code).toBe(400)
    expect(error.path).toBe('redeemables[1].id')
    expect(error.toJSON()).toStrictEqual({
      code: 400,
      key: 'invalid_payload',
      message: 'Invalid payload',
      details: 'Property .redeemables[1].id is required',
      request_id: null,
    })
  })

  it('takes a specific key', () => {
    const error = EngineError.invalid('limit', 'must be between 1 and 100', 'invalid_query_params')
    expect([error.code, error.key, error.details, error.path]).toEqual([
      400,
      'invalid_query_params',
      'Property .limit must be between 1 and 100',
      'limit',
    ])
  })
})

describe('EngineError.notFound', () => {
  it('is a 404 naming the resource', () => {
    const error = EngineError.notFound('voucher', 'SUMMER10')
    expect(error.path).toBeUndefined()
    expect(error.toJSON()).toStrictEqual({
      code: 404,
      key: 'not_found',
      message: 'Resource not found',
      details: 'Cannot find voucher with id SUMMER10',
      request_id: null,
      resource_id: 'SUMMER10',
      resource_type: 'voucher',
    })
  })

  it('names the path parameter, and takes a specific message', () => {
    const error = EngineError.notFound('customer', 'cust_1', 'customerId', 'Customer not found')
    expect([error.message, error.details, error.path]).toEqual([
      'Customer not found',
      'Cannot find customer with id cust_1',
      'customerId',
    ])
  })
})

describe('EngineError.conflict', () => {
  it('is a 409 with the given key and details, and an optional path', () => {
    const error = EngineError.conflict('duplicate_found', 'Voucher with code SUMMER already exists', 'code')
    expect(error.path).toBe('code')
    expect(error.toJSON()).toStrictEqual({
      code: 409,
      key: 'duplicate_found',
      message: 'Conflict',
      details: 'Voucher with code SUMMER already exists',
      request_id: null,
    })
    const bare = EngineError.conflict('concurrent_modification', 'Retry the request.')
    expect(bare.path).toBeUndefined()
    expect('path' in bare.toJSON()).toBe(false)
  })
})

describe('isEngineError and instanceof across copies of the package', () => {
  // Another copy (the CommonJS build next to the ESM one) has its own class but the same brand.
  // The real two-build check runs on dist in `npm run check:pkg` (scripts/check-dual-package.cjs).
  class OtherCopy extends Error {}
  Object.defineProperty(OtherCopy.prototype, Symbol.for('promo-engine.EngineError'), { value: true })

  it('recognises an EngineError of this copy and of another, and nothing else', () => {
    const ours = EngineError.invalid('order.amount', 'must be an integer')
    const theirs = new OtherCopy('Invalid payload')
    expect([isEngineError(ours), isEngineError(theirs)]).toEqual([true, true])
    expect([ours instanceof EngineError, theirs instanceof EngineError]).toEqual([true, true])
    const lookalike = { code: 400, key: 'invalid_payload', message: 'Invalid payload' }
    for (const value of [new Error('plain'), lookalike, null, undefined, 'invalid_payload']) {
      expect(isEngineError(value)).toBe(false)
      expect(value instanceof EngineError).toBe(false)
    }
  })
})

describe('EngineError details', () => {
  it('are bounded whatever an operation put in them, and quote() keeps a prefix', () => {
    const long = new EngineError({ code: 400, key: 'k', message: 'm', details: `Unknown thing ${'x'.repeat(100_000)}` })
    expect(long.details.length).toBeLessThan(2_100)
    expect(long.details).toMatch(/^Unknown thing x+… \(98014 more characters\)$/)
    expect(quote('short')).toBe('short')
    expect(quote('y'.repeat(150))).toBe(`${'y'.repeat(100)}… (50 more characters)`)
    expect(EngineError.notFound('campaign', 'z'.repeat(500)).details).toBe(
      `Cannot find campaign with id ${'z'.repeat(100)}… (400 more characters)`,
    )
  })
})
