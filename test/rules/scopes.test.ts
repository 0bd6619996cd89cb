import { describe, expect, it } from 'vitest'
import { grants, OPERATIONS, operationAccess, parseScope, SCOPES } from '../../src/rules/scopes'

describe('parseScope', () => {
  it('splits space-separated values, collapsing repeats and extra spaces', () => {
    expect(parseScope('vouchers  customers vouchers')).toEqual({ ok: true, scopes: ['vouchers', 'customers'] })
    expect(parseScope('client_api')).toEqual({ ok: true, scopes: ['client_api'] })
  })

  it('rejects a comma, an unknown value and an empty string', () => {
    expect(parseScope('vouchers,customers')).toEqual({
      ok: false,
      problem: 'must separate scope values with spaces; commas are not allowed',
    })
    expect(parseScope('vouchers wallets')).toEqual({ ok: false, problem: 'has an unknown scope value "wallets"' })
    expect(parseScope('   ')).toEqual({ ok: false, problem: 'must name at least one scope value' })
  })

  it('is case-sensitive as the service interface spells the values (SKUs)', () => {
    expect(parseScope('SKUs')).toEqual({ ok: true, scopes: ['SKUs'] })
    expect(parseScope('skus').ok).toBe(false)
  })
})

describe('the operation table', () => {
  it('gives each operation its family and scope (docs/behaviour.md#scopes)', () => {
    expect(operationAccess('validations.validateStackable')).toEqual({ family: 'server', scope: 'validations' })
    expect(operationAccess('loyalties.create')).toEqual({ family: 'server', scope: 'loyalties' })
    expect(operationAccess('customers.get')).toEqual({ family: 'server', scope: 'customers' })
    expect(operationAccess('products.listSkus')).toEqual({ family: 'server', scope: 'SKUs' })
    expect(operationAccess('metadataSchemas.get')).toEqual({ family: 'server', scope: 'metadata-schemas' })
    expect(operationAccess('asyncActions.get')).toEqual({ family: 'server', scope: 'async-actions' })
    expect(operationAccess('client.validations.validateStackable')).toEqual({
      family: 'client',
      scope: 'client_validations',
    })
    expect(operationAccess('client.redemptions.redeemStackable')).toEqual({
      family: 'client',
      scope: 'client_redemptions',
    })
    expect(operationAccess('client.events.create')).toEqual({ family: 'client', scope: 'client_events' })
    expect(operationAccess('stackingRules.list')).toEqual({ family: 'management', scope: null })
    expect(operationAccess('auth.issueToken')).toEqual({ family: 'token', scope: null })
    expect(operationAccess('toString')).toBeUndefined()
    expect(operationAccess('nothing.here')).toBeUndefined()
  })

  it('names only scope values of the service interface, client scopes for client operations', () => {
    for (const [name, access] of Object.entries(OPERATIONS)) {
      if (access.scope !== null) expect(SCOPES).toContain(access.scope)
      expect(access.family === 'client').toBe(name.startsWith('client.'))
      if (access.family === 'client') expect(access.scope?.startsWith('client_')).toBe(true)
      if (access.family === 'server') expect(access.scope?.startsWith('client_')).toBe(false)
    }
  })
})

describe('grants', () => {
  const server = { family: 'server', scope: 'vouchers' } as const
  const client = { family: 'client', scope: 'client_validations' } as const

  it('allows the operation scope or the family-wide one', () => {
    expect(grants(['vouchers'], server)).toBe(true)
    expect(grants(['api'], server)).toBe(true)
    expect(grants(['client_validations'], client)).toBe(true)
    expect(grants(['client_api'], client)).toBe(true)
  })

  it('refuses another scope, and api does not grant client operations (nor client_api server ones)', () => {
    expect(grants(['customers'], server)).toBe(false)
    expect(grants(['client_api'], server)).toBe(false)
    expect(grants(['api'], client)).toBe(false)
    expect(grants(['client_validate'], client)).toBe(false)
  })
})
