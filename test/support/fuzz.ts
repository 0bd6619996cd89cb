import fc from 'fast-check'
import { EngineError } from '../../src/errors'
import { createIdGenerator, seededRandom } from '../../src/ids'
import { argumentsOf } from '../../src/schema/arguments'
import { dumpStore } from '../../src/testing'
import { cardPayingWithPoints } from '../operations/loyalty/fixtures'
import { manualClock, testEngine } from './engine'

/**
 * The fuzzing of every public operation, shared by `test/operations/fuzz.prop.test.ts` (a few runs
 * each in `npm test`) and `bench/fuzz-long.ts` (a long run): malformed input (a plausible call with
 * one part replaced by junk or left out, or junk altogether) gets an `EngineError` and nothing else;
 * a refused call leaves the store byte-identical (`dumpStore`); whatever an accepted call stores
 * reads back from JSON unchanged (`dumpStore` throws otherwise).
 */

export type Fixture = Awaited<ReturnType<typeof fixture>>

/** What the fixture's injected clock, ids and random return while set (a host's faulty function). */
export interface Faults {
  clock?: () => unknown
  ids?: (prefix: string) => unknown
  random?: () => unknown
}

/**
 * An engine holding one of most things, so generated calls also reach ids that exist. Its clock, ids
 * and random are injected (seeded) and give what `faults` says while it says something.
 */
export async function fixture() {
  const faults: Faults = {}
  const clock = manualClock()
  const ids = createIdGenerator(seededRandom(41))
  const random = seededRandom(42)
  const t = testEngine({
    clock: { now: () => (faults.clock ? faults.clock() : clock.now()) as Date },
    ids: (prefix) => (faults.ids ? faults.ids(prefix) : ids(prefix)) as string,
    random: () => (faults.random ? faults.random() : random()) as number,
  })
  const e = t.engine
  await e.customers.create({ source_id: 'alice', metadata: { vip: true } })
  const product = await e.products.create({ source_id: 'p1', name: 'P1', price: 1000 })
  await e.products.createSku('p1', { sku: 's1', source_id: 'sku1' })
  await e.vouchers.create({ code: 'TEN', type: 'DISCOUNT_VOUCHER', discount: { type: 'PERCENT', percent_off: 10 } })
  const coupons = await e.campaigns.create({
    name: 'Coupons',
    campaign_type: 'DISCOUNT_COUPONS',
    vouchers_count: 2,
    voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 } },
  })
  const rule = await e.validationRules.create({
    name: 'rule',
    rules: { '1': { name: 'order.amount', conditions: { $more_than: [1] } }, logic: '1' },
  })
  const promo = await e.promotions.create({
    name: 'Promo',
    campaign_type: 'PROMOTION',
    promotion: { tiers: [{ name: 'T', action: { discount: { type: 'AMOUNT', amount_off: 1 } } }] },
  })
  const tierId = promo.promotion.tiers[0]?.id ?? ''
  const stack = await e.promotions.stacks.createInCampaign(promo.id, { name: 'S', tiers: { ids: [tierId] } })
  // Alice's card holds 500 points; the mug costs 10, the cap is not assigned yet.
  const { club, card } = await cardPayingWithPoints(e)
  const mug = await e.rewards.create({ name: 'Mug', type: 'MATERIAL', parameters: { product: { id: product.id } } })
  await e.rewards.createAssignment(mug.id, { campaign: club.id, parameters: { loyalty: { points: 10 } } })
  const cap = await e.rewards.create({ name: 'Cap', type: 'MATERIAL', parameters: { product: { id: product.id } } })
  await e.metadataSchemas.create({
    related_object: 'signed_up',
    properties: { source: { type: 'string', optional: true } },
  })
  const order = await e.orders.create({ source_id: 'o1', amount: 1000, customer: { source_id: 'alice' } })
  const redeemed = await e.redemptions.redeemStackable({
    redeemables: [{ object: 'voucher', id: 'TEN' }],
    order: { amount: 1000 },
    customer: { source_id: 'alice' },
  })
  const category = await e.categories.create({ name: 'First', hierarchy: 1 })
  const server = await e.auth.createApplication({ family: 'server' })
  const creds = { 'X-App-Id': server.app_id, 'X-App-Token': server.secret }
  const token = await e.auth.issueToken(creds, { grant_type: 'client_credentials', scope: 'api' })
  const template = await e.templates.createCampaignTemplate({ campaign_id: coupons.id, name: 'Tpl' })
  const known = {
    coupons: coupons.id,
    rule: rule.id,
    promo: promo.id,
    tier: tierId,
    stack: stack.id,
    club: club.id,
    card: card.id,
    mug: mug.id,
    cap: cap.id,
    child: redeemed.redemptions[0]?.id ?? '',
    product: product.id,
    order: order.id,
    redemption: redeemed.parent_redemption.id,
    category: category.id,
    template: template.id,
  }
  return { ...t, clock, faults, ids: known, creds, token: token.access_token }
}

/** `n` varies the names and keys a second call may not reuse, so generated calls can be accepted too. */
export type Sample = (f: Fixture, n: number) => unknown[]

/** Each public operation with the arguments of one plausible call, which the properties then break. */
export const OPERATIONS: Record<string, Sample> = {
  'customers.create': (_, n) => [{ source_id: `bob${n}`, name: 'Bob', email: 'bob@example.com', metadata: { a: 1 } }],
  'customers.get': () => ['alice'],
  'customers.listActivity': () => ['alice', { limit: 5 }],
  'customers.enterSegment': () => ['alice', 'seg_vip'],
  'customers.leaveSegment': () => ['alice', 'seg_vip'],
  'validations.validateStackable': () => [
    {
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { amount: 5000, items: [{ product_id: 'p1', quantity: 2, price: 2500 }] },
      customer: { source_id: 'alice' },
    },
  ],
  'redemptions.redeemStackable': () => [
    {
      redeemables: [{ object: 'voucher', id: 'TEN' }],
      order: { amount: 5000, items: [{ product_id: 'p1', quantity: 2, price: 2500 }] },
      customer: { source_id: 'alice' },
      metadata: { channel: 'web' },
    },
  ],
  'redemptions.rollbackStackable': (f) => [f.ids.redemption, { reason: 'mistake' }],
  'redemptions.rollback': (f) => [f.ids.child, { reason: 'mistake' }],
  'redemptions.get': (f) => [f.ids.redemption],
  'promotions.create': (f, n) => [
    {
      name: `Promo ${n}`,
      campaign_type: 'PROMOTION',
      metadata: { x: [1, 2] },
      promotion: {
        tiers: [
          { name: 'A', action: { discount: { type: 'PERCENT', percent_off: 10 } }, validation_rules: [f.ids.rule] },
        ],
      },
    },
  ],
  'promotions.tiers.create': (f) => [
    f.ids.promo,
    { name: 'T2', action: { discount: { type: 'AMOUNT', amount_off: 5 } } },
  ],
  'promotions.tiers.get': (f) => [f.ids.tier],
  'promotions.tiers.list': (f) => [f.ids.promo],
  'promotions.tiers.enable': (f) => [f.ids.tier],
  'promotions.tiers.disable': (f) => [f.ids.tier],
  'promotions.stacks.createInCampaign': (f) => [f.ids.promo, { name: 'S2', tiers: { ids: [f.ids.tier] } }],
  'promotions.stacks.get': (f) => [f.ids.stack],
  'promotions.stacks.list': () => [{ limit: 5, order: '-created_at' }],
  'promotions.stacks.listInCampaign': (f) => [f.ids.promo, { limit: 5 }],
  'validationRules.create': (_, n) => [
    { name: `r${n}`, rules: { '1': { name: 'order.amount', conditions: { $less_than: [100000] } }, logic: '1' } },
  ],
  'validationRules.get': (f) => [f.ids.rule],
  'validationRules.createAssignment': (f) => [
    f.ids.rule,
    { related_object_type: 'campaign', related_object_id: f.ids.coupons },
  ],
  'validationRules.listAssignments': (f) => [f.ids.tier],
  'stackingRules.list': () => ['proj_default'],
  'stackingRules.get': () => ['proj_default'],
  'stackingRules.create': () => ['proj_default', { redeemables_limit: 3, applicable_redeemables_limit: 2 }],
  'stackingRules.update': () => ['proj_default', 'str_x', { redeemables_limit: 4 }],
  'campaigns.create': (_, n) => [
    {
      name: `Coupons ${n}`,
      campaign_type: 'DISCOUNT_COUPONS',
      vouchers_count: 1,
      voucher: { type: 'DISCOUNT_VOUCHER', discount: { type: 'AMOUNT', amount_off: 100 }, code_config: { length: 8 } },
      metadata: { region: 'EU' },
    },
  ],
  'campaigns.get': (f) => [f.ids.coupons],
  'vouchers.create': (_, n) => [
    {
      code: `NEW${n}`,
      type: 'GIFT_VOUCHER',
      gift: { amount: 10000 },
      metadata: { a: 'b' },
      start_date: '2026-01-01T00:00:00Z',
    },
  ],
  'vouchers.get': () => ['TEN'],
  'vouchers.bulkUpdate': () => [[{ code: 'TEN', metadata: { tier: 1 } }]],
  'vouchers.releaseValidationSession': () => ['TEN', 'ssn_mine'],
  'categories.create': (_, n) => [{ name: `Second ${n}`, hierarchy: 2 }],
  'categories.get': (f) => [f.ids.category],
  'products.create': (_, n) => [
    { source_id: `p2-${n}`, name: 'P2', price: 500, attributes: ['color'], metadata: { a: 1 } },
  ],
  'products.createSku': (_, n) => [
    'p1',
    { sku: `s${n}`, source_id: `sku-${n}`, price: 600, attributes: { color: 'red' } },
  ],
  'products.listSkus': () => ['p1', { limit: 5 }],
  'products.createCollection': (f) => [
    { name: 'Picks', type: 'STATIC', products: [{ id: f.ids.product, object: 'product' }] },
  ],
  'products.getCollection': () => ['pc_x'],
  'auth.createApplication': () => [{ family: 'client', name: 'web', allowed_origins: ['https://*.example.com'] }],
  'auth.issueToken': (f) => [f.creds, { grant_type: 'client_credentials', scope: 'api' }],
  'auth.revokeToken': (f) => [f.creds, { access_token: f.token }],
  'auth.rotateSecret': (f) => [f.creds['X-App-Id']],
  'auth.authenticate': (f) => [
    {
      family: 'server',
      headers: { ...f.creds, Authorization: `Bearer ${f.token}` },
      operation: 'validations.validateStackable',
    },
  ],
  'metadataSchemas.create': () => [
    { related_object: 'customer', properties: { size: { type: 'string', optional: true } }, allow_defined_only: false },
  ],
  'metadataSchemas.get': () => ['customer'],
  'metadataSchemas.list': () => [],
  'asyncActions.get': () => ['aa_x'],
  'asyncActions.runPending': () => [],
  'exports.createCampaignTransactionsExport': (f) => [
    f.ids.club,
    { parameters: { fields: ['id', 'amount'], filters: { created_at: { conditions: { $after: ['2026-01-01'] } } } } },
  ],
  'exports.create': () => [{ exported_object: 'customer', parameters: { fields: ['source_id', 'metadata.vip'] } }],
  'exports.get': () => ['exp_x'],
  'files.get': () => ['file_x'],
  'files.download': () => ['file_x', { expires: '1768474800', signature: 'x'.repeat(43) }],
  'maintenance.purgeExpired': () => [{ limit: 10 }],
  'maintenance.trimChangeFeed': () => [{ older_than_seconds: 3600, limit: 10 }],
  'maintenance.backfillCustomerSummaries': () => [{ limit: 10 }],
  'maintenance.backfillSessionLocks': () => [{ limit: 10 }],
  'maintenance.backfillCardTransactions': () => [{ limit: 10 }],
  'maintenance.backfillUnitBudgets': () => [{ limit: 10 }],
  'maintenance.foldPeriodCounters': () => [{ limit: 10 }],
  'publications.create': (f) => [
    { customer: { source_id: 'alice' }, campaign: { name: 'Coupons' }, metadata: { id: f.ids.order } },
  ],
  'referrals.publish': () => ['Coupons', { customer: { source_id: 'alice' } }],
  'referrals.listHolders': (f) => [f.ids.card, { limit: 5 }],
  'templates.createCampaignTemplate': (f, n) => [{ campaign_id: f.ids.coupons, name: `Tpl ${n}` }],
  'templates.getCampaignTemplate': (f) => [f.ids.template],
  'templates.listCampaignTemplates': () => [{ limit: 5 }],
  'templates.createCampaignFromTemplate': (f, n) => [f.ids.template, { name: `From template ${n}`, vouchers_count: 1 }],
  'loyalties.create': (_, n) => [
    {
      name: `Club ${n}`,
      type: 'AUTO_UPDATE',
      vouchers_count: 1,
      voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'C2-####' } },
    },
  ],
  'loyalties.get': (f) => [f.ids.club],
  'loyalties.qualifications': (f) => [f.ids.club, { customer: { source_id: 'alice' }, order: { amount: 5000 } }],
  'qualifications.checkEligibility': () => [
    {
      customer: { source_id: 'alice' },
      order: { amount: 5000, items: [{ source_id: 'p1', quantity: 1 }] },
      options: { limit: 5 },
    },
  ],
  'qualifications.bestStack': () => [{ order: { amount: 5000 }, redeemables: [{ object: 'voucher', id: 'TEN' }] }],
  'loyalties.list': () => [{ limit: 5 }],
  'loyalties.createMember': (f, n) => [f.ids.club, { customer: { source_id: `carol${n}` }, metadata: { a: 1 } }],
  'loyalties.getMember': (f) => [f.ids.club, f.ids.card],
  'loyalties.getMemberTier': (f) => [f.ids.club, f.ids.card],
  'loyalties.createEarningRule': (f) => [f.ids.club, [{ event: 'order.paid', loyalty: { type: 'FIXED', points: 5 } }]],
  'loyalties.listEarningRules': (f) => [f.ids.club, { limit: 5 }],
  'loyalties.createTiers': (f) => [f.ids.club, [{ name: 'Gold', points: { from: 0, to: 999 } }]],
  'loyalties.listTiers': (f) => [f.ids.club, { limit: 5 }],
  'loyalties.createRewardAssignments': (f) => [
    f.ids.club,
    [{ reward: f.ids.mug, parameters: { loyalty: { points: 5 } } }],
  ],
  'loyalties.redeemReward': (f) => [f.ids.club, f.ids.card, { reward: { id: f.ids.mug }, metadata: { a: 1 } }],
  'rewards.create': (_, n) => [
    { name: `Coin ${n}`, type: 'COIN', parameters: { coin: { exchange_ratio: 0.01, points_ratio: 1 } } },
  ],
  'rewards.get': (f) => [f.ids.mug],
  'rewards.createAssignment': (f) => [f.ids.cap, { campaign: f.ids.club, parameters: { loyalty: { points: 20 } } }],
  'events.create': () => ['signed_up', { customer: { source_id: 'alice' }, metadata: { a: 1 } }],
  'orders.create': (_, n) => [{ source_id: `o2-${n}`, amount: 2000, status: 'PAID', customer: { source_id: 'alice' } }],
  'orders.update': (f) => [f.ids.order, { status: 'PAID', metadata: { a: [1] } }],
  'orders.get': (f) => [f.ids.order],
}

/** Refusals that are themselves recorded (a failed rollback and its activity), in these collections. */
const RECORDED_REFUSALS: Record<string, readonly string[]> = {
  'redemptions.rollbackStackable': ['redemption_rollbacks', 'activities', 'counters'],
  'redemptions.rollback': ['redemption_rollbacks', 'activities', 'counters'],
}

/** The operation at a dotted path of the engine (`promotions.tiers.create`), bound to its namespace. */
export function operationOf(engine: object, path: string): (...args: unknown[]) => Promise<unknown> {
  let target: unknown = engine
  for (const part of path.split('.')) target = (target as Record<string, unknown>)[part]
  return target as (...args: unknown[]) => Promise<unknown>
}

/** Every operation path of an engine: each function under a namespace, nested ones included. */
export function operationPaths(engine: object): string[] {
  const out: string[] = []
  const walk = (value: unknown, path: string) => {
    if (typeof value === 'function') out.push(path)
    else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, path === '' ? k : `${path}.${k}`)
    }
  }
  // `raw` holds the same operations again, typed for parsed JSON bodies.
  for (const [name, namespace] of Object.entries(engine))
    if (name !== 'settings' && name !== 'raw') walk(namespace, name)
  return out.sort()
}

const NON_JSON = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  undefined,
  () => 1,
  Symbol('s'),
  10n,
  new Date(0),
  new Map([[1, 2]]),
  'x'.repeat(70_000),
]

/** Bodies as `JSON.parse` makes them from a hostile request: `__proto__` and `constructor` as own keys. */
const POLLUTERS = [
  JSON.parse('{"__proto__": {"polluted": true}}'),
  JSON.parse('{"constructor": {"prototype": {"polluted": true}}}'),
  JSON.parse('{"metadata": {"__proto__": {"polluted": true}}, "__proto__": []}'),
]

function deep(levels: number): unknown {
  let value: unknown = {}
  for (let i = 0; i < levels; i++) value = { a: value }
  return value
}

/** Junk of every kind: any JavaScript value, non-JSON ones, ids that exist, very deep input. */
export function junk(f: Fixture): fc.Arbitrary<unknown> {
  return fc.oneof(
    {
      weight: 4,
      arbitrary: fc.anything({
        maxDepth: 3,
        withBigInt: true,
        withDate: true,
        withMap: true,
        withSet: true,
        withNullPrototype: true,
        withSparseArray: true,
        withBoxedValues: true,
        withObjectString: true,
      }),
    },
    { weight: 2, arbitrary: fc.constantFrom(...NON_JSON) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...Object.values(f.ids), 'TEN', 'alice', 'p1', '', ' ', '-1', '__proto__'),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        deep(40),
        deep(5000),
        [[[[[[]]]]]],
        { __proto__: { polluted: 1 } },
        Object.create(null),
      ),
    },
    { weight: 1, arbitrary: fc.constantFrom(...POLLUTERS) },
    { weight: 1, arbitrary: fc.oneof(fc.integer(), fc.double(), fc.string({ maxLength: 300 })) },
  )
}

type Path = (string | number)[]

function pathsOf(value: unknown, prefix: Path = [], out: Path[] = []): Path[] {
  if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      const path = [...prefix, Array.isArray(value) ? Number(k) : k]
      out.push(path)
      pathsOf(v, path, out)
    }
  }
  return out
}

const REMOVE = Symbol('remove')

function replaced(args: unknown[], path: Path, by: unknown): unknown[] {
  const copy = structuredClone(args)
  let parent: Record<string | number, unknown> = copy as never
  for (const key of path.slice(0, -1)) parent = parent[key] as Record<string | number, unknown>
  const last = path[path.length - 1] as string | number
  if (by === REMOVE) {
    if (Array.isArray(parent)) parent.splice(Number(last), 1)
    else delete parent[last]
  } else {
    parent[last] = by
  }
  return copy
}

/** The position of the per-call options in a call of the operation at `path` (after its arguments). */
export function optionsAt(path: string, args: readonly unknown[]): number {
  const signature = argumentsOf(path, args)
  if (signature === undefined) throw new Error(`${path} has no signature in src/schema/arguments.ts`)
  return signature.length
}

/** The per-call options each operation takes (`CallOptions`, and the family for qualifications). */
const OPTION_KEYS: Readonly<Record<string, readonly string[]>> = {
  'qualifications.checkEligibility': ['idempotencyKey', 'side'],
}

/** What is wrong with a call's per-call options or its number of arguments, if anything. */
export function misusedOptions(path: string, args: readonly unknown[]): string | undefined {
  const at = optionsAt(path, args)
  let last = args.length
  while (last > 0 && args[last - 1] === undefined) last--
  if (last > at + 1) return 'an argument after the options'
  const options = args[at]
  if (options === undefined) return undefined
  if (typeof options !== 'object' || options === null || Array.isArray(options)) return 'options that are no object'
  const given = Object.entries(options).filter(([, value]) => value !== undefined)
  const allowed = OPTION_KEYS[path] ?? ['idempotencyKey']
  const unknown = given.find(([key]) => !allowed.includes(key))
  if (unknown) return `the unknown option ${unknown[0]}`
  const { idempotencyKey, side } = options as Record<string, unknown>
  if (idempotencyKey !== undefined && typeof idempotencyKey !== 'string') return 'a key that is no string'
  if (side !== undefined && side !== 'server' && side !== 'client') return 'an unknown side'
  return undefined
}

/** Per-call options as a caller may get them wrong: misspelt, unknown, of the wrong type, or right. */
export function callOptions(f: Fixture): fc.Arbitrary<unknown> {
  return fc.oneof(
    fc.record({ idempotency_key: fc.string({ minLength: 1, maxLength: 20 }) }),
    fc.record({ idempotencyKey: fc.string({ minLength: 1, maxLength: 20 }) }),
    fc.record({ idempotencyKey: junk(f) }),
    fc.dictionary(fc.string({ maxLength: 15 }), junk(f), { minKeys: 1, maxKeys: 3 }),
    fc.constantFrom([], [{ idempotencyKey: 'k' }], 'k', 0, null, true),
    junk(f),
  )
}

/** Calls of one operation: its sample with one part replaced or left out, or junk arguments. */
export function calls(f: Fixture, sample: Sample, path?: string): fc.Arbitrary<unknown[]> {
  const paths = pathsOf(sample(f, 0))
  const broken =
    paths.length === 0
      ? fc.array(junk(f), { maxLength: 3 })
      : fc
          .tuple(fc.nat(paths.length - 1), fc.oneof({ weight: 4, arbitrary: junk(f) }, fc.constant(REMOVE)), fc.nat())
          .map(([i, by, n]) => replaced(sample(f, n), paths[i] as Path, by))
  const optioned =
    path === undefined
      ? broken
      : fc.tuple(fc.nat(), callOptions(f), fc.boolean()).map(([n, options, extra]) => {
          const args = sample(f, n)
          args[optionsAt(path, args)] = options
          // An argument after the options, where a caller put the options one place too late.
          return extra ? [...args, { idempotencyKey: 'k' }] : args
        })
  return fc.oneof(
    { weight: 4, arbitrary: broken },
    { weight: 1, arbitrary: fc.array(junk(f), { maxLength: 4 }) },
    { weight: 1, arbitrary: optioned },
  )
}

/** A faulty clock, id generator or random source: each returns a wrong value of some kind. */
export function faults(): fc.Arbitrary<Faults> {
  const wrongDate = fc.constantFrom<unknown>('2026-01-15T10:00:00Z', 1_768_471_200_000, new Date('never'), undefined)
  const wrongNumber = fc.oneof(
    fc.constantFrom<unknown>(1, 2, -1, Number.NaN, Number.POSITIVE_INFINITY, '0.5', undefined),
    fc.double({ min: 1, noNaN: true }),
  )
  let n = 0
  return fc.oneof(
    wrongDate.map((value): Faults => ({ clock: () => value })),
    fc
      .constantFrom<unknown>('', 7, null, 'same')
      .map((value): Faults => ({ ids: (prefix) => (value === 'same' ? `${prefix}same` : value) })),
    wrongNumber.map((value): Faults => ({ random: () => value })),
    // Wrong only now and then: some calls of one operation get a good value first.
    wrongNumber.map((value): Faults => ({ random: () => (n++ % 3 === 2 ? value : 0.5) })),
  )
}

function withoutCollections(dump: string, names: readonly string[]): string {
  if (names.length === 0) return dump
  const parsed = JSON.parse(dump) as Record<string, unknown>
  for (const name of names) delete parsed[name]
  return JSON.stringify(parsed)
}

/**
 * One call while the injected functions give wrong values: refused with an EngineError (one naming
 * the faulty option when the call used it) or accepted (it did not use it); what `checkCall` checks.
 */
export async function checkFaultyCall(f: Fixture, path: string, args: unknown[], given: Faults): Promise<void> {
  Object.assign(f.faults, given)
  try {
    await checkCall(f, path, args, (error) => {
      const option = Object.keys(given)[0]
      if (error.key === 'invalid_engine_option_result' && error.path !== option) {
        throw new Error(`${path} named ${error.path} for a faulty ${option}`)
      }
    })
  } finally {
    for (const key of Object.keys(f.faults)) delete f.faults[key as keyof Faults]
  }
}

/** One call and the three promises; returns what happened, for the long run's report. */
export async function checkCall(
  f: Fixture,
  path: string,
  args: unknown[],
  refused?: (error: EngineError) => void,
): Promise<'accepted' | 'refused'> {
  const before = await dumpStore(f.store)
  let error: unknown
  let accepted = false
  try {
    await operationOf(f.engine, path)(...args)
    accepted = true
  } catch (e) {
    error = e
  }
  const polluted = Object.keys(Object.prototype).concat(Object.keys(Array.prototype))
  if (polluted.length > 0) throw new Error(`${path} polluted a prototype with ${polluted.join(', ')}`)
  const misuse = misusedOptions(path, args)
  if (accepted && misuse !== undefined) throw new Error(`${path} accepted ${misuse}, which it would have ignored`)
  if (accepted) {
    // Throws when anything stored would not read back from JSON as it is.
    await dumpStore(f.store)
    return 'accepted'
  }
  if (!(error instanceof EngineError)) {
    throw new Error(`${path} threw ${error instanceof Error ? `${error.name}: ${error.message}` : String(error)}`, {
      cause: error,
    })
  }
  refused?.(error)
  const except = RECORDED_REFUSALS[path] ?? []
  const after = await dumpStore(f.store)
  if (withoutCollections(after, except) !== withoutCollections(before, except)) {
    throw new Error(`${path} refused (${error.key}: ${error.details}) but changed the store`)
  }
  return 'refused'
}
