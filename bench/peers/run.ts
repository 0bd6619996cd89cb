/**
 * Side by side with the peers (issue 7 item 3): on the same generated carts, in one process, after
 * warm-up, our discount calculation against Medusa's compute-action helpers (in the ordering loop of
 * their `computeActions`), Vendure's `Promotion.apply` with its `prorate` (in the loop of their
 * `OrderCalculator`, and lean), and a hand-written floor loop. Checks agreement first, then times.
 *
 * Run: `cd bench/peers && npm install && npm run bench` (the root needs its own `npm install` too:
 * our source and decimal.js are imported from there).
 */
import { createRequire } from 'node:module'
import { Decimal } from 'decimal.js'
import { Bench } from 'tinybench'
import { seededRandom } from '../../src/ids'
import type { CalculatedOrder, OrderInput } from '../../src/model/order'
import { divRound } from '../../src/money'
import { applyStep, normalizeOrder, type Step } from '../../src/rules/discounts'

const require = createRequire(import.meta.url)

// ---------------------------------------------------------------------------------------------
// Carts: deterministic (mulberry32, fixed seed), integer minor units.

const SIZES = [10, 100, 500] as const
const PRODUCTS = ['p0', 'p1', 'p2', 'p3', 'p4']
const MATCHED = ['p0', 'p1']
const PERCENT = 10
const AMOUNT = 500
/** Carts per size the timed functions cycle through; the agreement check uses more. */
const TIMED_CARTS = 8
const CHECKED_CARTS = 200

interface Line {
  id: string
  product: string
  price: number
  quantity: number
}

function makeCarts(lines: number, count: number, seed: number): Line[][] {
  const next = seededRandom(seed)
  const int = (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1))
  return Array.from({ length: count }, () =>
    Array.from({ length: lines }, (_, i) => ({
      id: `li_${i}`,
      product: PRODUCTS[int(0, PRODUCTS.length - 1)] as string,
      price: int(100, 50000),
      quantity: int(1, 7),
    })),
  )
}

/** What every implementation is reduced to for the agreement check. */
interface Outcome {
  /** The total discount, in minor units (Medusa's unrounded sum rounded half-up). */
  total: number
  /** Per-line discounts in minor units, or null when the implementation gives none (our order-level discount). */
  lines: number[] | null
  /** Medusa only: the unrounded per-line amounts as decimal strings. */
  raw?: string[]
}

type Workload = 'percent-off-order' | 'amount-off-items'
const WORKLOADS: Workload[] = ['percent-off-order', 'amount-off-items']

// ---------------------------------------------------------------------------------------------
// Ours: normalizeOrder + applyStep.

const OUR_STEPS: Record<Workload, Step> = {
  'percent-off-order': {
    kind: 'discount',
    discount: { type: 'PERCENT', percent_off: PERCENT, effect: 'APPLY_TO_ORDER' },
  },
  // AMOUNT per unit of the matched lines, capped at the line: Medusa's `each` with max_quantity and
  // Vendure's item actions (a per-unit amount × quantity) mean the same.
  'amount-off-items': {
    kind: 'discount',
    discount: { type: 'AMOUNT', amount_off: AMOUNT, effect: 'APPLY_TO_ITEMS_BY_QUANTITY' },
    applicable_to: { included: MATCHED.map((id) => ({ object: 'product' as const, id })) },
  },
}

function ourInput(cart: Line[]): OrderInput {
  return { items: cart.map((l) => ({ product_id: l.product, price: l.price, quantity: l.quantity })) }
}

function ours(input: OrderInput, workload: Workload) {
  return applyStep(normalizeOrder(input), OUR_STEPS[workload])
}

function ourOutcome(input: OrderInput, workload: Workload): Outcome {
  const r = ours(input, workload)
  if (workload === 'percent-off-order') return { total: r.applied.total_discount_amount, lines: null }
  const lines = new Array<number>(r.order.items.length).fill(0)
  for (const l of r.applied.lines) lines[l.index] = (lines[l.index] as number) + l.discount_amount
  return { total: r.applied.total_discount_amount, lines }
}

// ---------------------------------------------------------------------------------------------
// Medusa: the pure helpers inside the loop of PromotionModuleService.computeActions (2.21.2):
// sort (buy-get first, then value DESC), usage limit, currency, top-level rules, dispatch by type and
// target, shared accumulator map, amounts turned into BigNumbers. The database listing is left out.

interface MedusaBigNumber {
  raw: { value: string }
}
interface MedusaAction {
  action: string
  item_id?: string
  amount?: MedusaBigNumber
}
interface MedusaPromotion {
  code: string
  type: 'standard' | 'buyget'
  limit?: number
  used?: number
  rules: unknown[]
  application_method: {
    type: 'percentage' | 'fixed'
    target_type: 'order' | 'items' | 'shipping_methods'
    allocation: 'across' | 'each'
    value: number
    max_quantity?: number
    currency_code?: string
    target_rules: unknown[]
  }
}
interface MedusaItem {
  id: string
  quantity: number
  subtotal: number
  original_total: number
  is_discountable: boolean
  product_id: string
  product: { id: string }
}
interface MedusaContext {
  currency_code: string
  items: MedusaItem[]
  shipping_methods: unknown[]
}

const medusaUtils = require('@medusajs/promotion/dist/utils') as {
  ComputeActionUtils: {
    sortByBuyGetType(a: MedusaPromotion, b: MedusaPromotion): number
    getComputedActionsForItems(
      p: MedusaPromotion,
      items: MedusaItem[],
      applied: Map<string, unknown>,
      allocationOverride?: string,
    ): MedusaAction[]
    getComputedActionsForBuyGet(...args: unknown[]): MedusaAction[]
    getComputedActionsForShippingMethods(...args: unknown[]): MedusaAction[]
  }
  areRulesValidForContext(rules: unknown[], context: unknown, scope: string): boolean
}
const medusaFramework = require('@medusajs/framework/utils') as {
  transformPropertiesToBigNumber(obj: unknown, options: { include: string[] }): void
}
const { ComputeActionUtils, areRulesValidForContext } = medusaUtils

const MEDUSA_PROMOTIONS: Record<Workload, MedusaPromotion> = {
  'percent-off-order': {
    code: 'PCT10',
    type: 'standard',
    rules: [],
    application_method: {
      type: 'percentage',
      target_type: 'order',
      allocation: 'across',
      value: PERCENT,
      target_rules: [],
    },
  },
  'amount-off-items': {
    code: 'AMT500',
    type: 'standard',
    rules: [],
    application_method: {
      type: 'fixed',
      target_type: 'items',
      allocation: 'each',
      value: AMOUNT,
      // `each` takes value × min(quantity, max_quantity) (max_quantity defaults to 1): per unit here.
      max_quantity: 1000,
      target_rules: [{ attribute: 'items.product.id', operator: 'in', values: MATCHED.map((value) => ({ value })) }],
    },
  },
}

function medusaContext(cart: Line[]): MedusaContext {
  return {
    currency_code: 'usd',
    items: cart.map((l) => ({
      id: l.id,
      quantity: l.quantity,
      subtotal: l.price * l.quantity,
      original_total: l.price * l.quantity,
      is_discountable: true,
      product_id: l.product,
      product: { id: l.product },
    })),
    shipping_methods: [],
  }
}

function medusa(promotions: MedusaPromotion[], context: MedusaContext): MedusaAction[] {
  const computedActions: MedusaAction[] = []
  const methodIdPromoValueMap = new Map<string, unknown>()
  const eligibleBuyItemMap = new Map()
  const eligibleTargetItemMap = new Map()
  const sorted = promotions.slice().sort(ComputeActionUtils.sortByBuyGetType)
  for (const promotion of sorted) {
    const method = promotion.application_method
    if (!method) continue
    if (typeof promotion.limit === 'number' && (promotion.used ?? 0) >= promotion.limit) {
      computedActions.push({ action: 'promotionLimitExceeded' })
      continue
    }
    const currencyOk = !method.currency_code || context.currency_code === method.currency_code
    if (!areRulesValidForContext(promotion.rules, context, 'order') || !currencyOk) continue
    if (promotion.type === 'buyget') {
      computedActions.push(
        ...ComputeActionUtils.getComputedActionsForBuyGet(
          promotion,
          context.items,
          methodIdPromoValueMap,
          eligibleBuyItemMap,
          eligibleTargetItemMap,
        ),
      )
    } else if (promotion.type === 'standard') {
      const isOrder = method.target_type === 'order'
      if (isOrder || method.target_type === 'items') {
        computedActions.push(
          ...ComputeActionUtils.getComputedActionsForItems(
            promotion,
            context.items,
            methodIdPromoValueMap,
            isOrder ? 'across' : undefined,
          ),
        )
      }
      if (method.target_type === 'shipping_methods') {
        computedActions.push(
          ...ComputeActionUtils.getComputedActionsForShippingMethods(
            promotion,
            context.shipping_methods,
            methodIdPromoValueMap,
          ),
        )
      }
    }
  }
  medusaFramework.transformPropertiesToBigNumber(computedActions, { include: ['amount'] })
  return computedActions
}

function medusaOutcome(cart: Line[], workload: Workload): Outcome {
  const actions = medusa([MEDUSA_PROMOTIONS[workload]], medusaContext(cart))
  const index = new Map(cart.map((l, i) => [l.id, i]))
  const exact: Decimal[] = cart.map(() => new Decimal(0))
  for (const a of actions) {
    if (a.action !== 'addItemAdjustment' || a.item_id === undefined || a.amount === undefined) continue
    const i = index.get(a.item_id) as number
    exact[i] = (exact[i] as Decimal).plus(a.amount.raw.value)
  }
  const sum = exact.reduce((s, d) => s.plus(d), new Decimal(0))
  return {
    total: sum.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber(),
    lines: exact.map((d) => d.toDecimalPlaces(0, Decimal.ROUND_HALF_UP).toNumber()),
    raw: exact.map((d) => d.toString()),
  }
}

// ---------------------------------------------------------------------------------------------
// Vendure: Promotion.test / apply with explicit conditions and actions, the default MoneyStrategy
// (Math.round, read once from the default config), entities built by hand (no DB, no Nest DI).

// biome-ignore lint/suspicious/noExplicitAny: Vendure's entities are used untyped here (their types pull in TypeORM and GraphQL).
type Any = any
const vendure = require('@vendure/core') as Any
const { prorate } = require('@vendure/core/dist/service/helpers/order-calculator/prorate') as {
  prorate(weights: number[], amount: number): number[]
}
const DISTRIBUTED = 'DISTRIBUTED_ORDER_PROMOTION'

/**
 * Vendure ships no per-product fixed discount (only `orderLineFixedDiscount`, for every line); this is
 * `productsPercentageDiscount` with a fixed per-unit amount, capped at the unit price.
 */
const productsFixedDiscount = new vendure.PromotionItemAction({
  code: 'products_fixed_discount',
  description: [{ languageCode: vendure.LanguageCode.en, value: 'Discount specified products by a fixed amount' }],
  args: {
    discount: { type: 'int' },
    productVariantIds: { type: 'ID', list: true },
  },
  execute(ctx: Any, orderLine: Any, args: Any) {
    if (args.productVariantIds.find((id: string) => vendure.idsAreEqual(id, orderLine.productVariant.id))) {
      const unitPrice = ctx.channel.pricesIncludeTax ? orderLine.unitPriceWithTax : orderLine.unitPrice
      return -Math.min(args.discount, unitPrice)
    }
    return 0
  },
})

const VENDURE_ACTIONS = [vendure.orderPercentageDiscount, productsFixedDiscount]
const VENDURE_PROMOTIONS: Record<Workload, Any> = {
  'percent-off-order': new vendure.Promotion({
    id: 1,
    name: '10% off the order',
    conditions: [],
    actions: [{ code: 'order_percentage_discount', args: [{ name: 'discount', value: String(PERCENT) }] }],
    promotionConditions: [],
    promotionActions: VENDURE_ACTIONS,
  }),
  'amount-off-items': new vendure.Promotion({
    id: 2,
    name: '500 off each unit of p0, p1',
    conditions: [],
    actions: [
      {
        code: 'products_fixed_discount',
        args: [
          { name: 'discount', value: String(AMOUNT) },
          { name: 'productVariantIds', value: JSON.stringify(MATCHED) },
        ],
      },
    ],
    promotionConditions: [],
    promotionActions: VENDURE_ACTIONS,
  }),
}

const vendureCtx = new vendure.RequestContext({
  apiType: 'admin',
  isAuthorized: true,
  authorizedAsOwnerOnly: false,
  channel: new vendure.Channel({ id: 1, pricesIncludeTax: false, defaultCurrencyCode: 'USD' }),
})

function vendureOrder(cart: Line[]): Any {
  const variants = new Map(PRODUCTS.map((id) => [id, new vendure.ProductVariant({ id })]))
  const lines = cart.map(
    (l) =>
      new vendure.OrderLine({
        id: l.id,
        quantity: l.quantity,
        orderPlacedQuantity: 0,
        listPrice: l.price,
        listPriceIncludesTax: false,
        taxLines: [],
        adjustments: [],
        productVariant: variants.get(l.product),
      }),
  )
  const order = new vendure.Order({ id: 1, lines, surcharges: [], shippingLines: [], couponCodes: [], promotions: [] })
  calculateOrderTotals(order)
  return order
}

/** OrderCalculator.calculateOrderTotals (no surcharges or shipping here). */
function calculateOrderTotals(order: Any): void {
  let totalPrice = 0
  let totalPriceWithTax = 0
  for (const line of order.lines) {
    totalPrice += line.proratedLinePrice
    totalPriceWithTax += line.proratedLinePriceWithTax
  }
  order.subTotal = totalPrice
  order.subTotalWithTax = totalPriceWithTax
}

/** OrderCalculator's order-level step: apply, then prorate over lines and over each line's units. */
function distribute(order: Any, adjustment: Any): void {
  const amount = adjustment.amount
  const weights = order.lines.map((l: Any) => (l.quantity !== 0 ? l.proratedLinePriceWithTax : 0))
  const distribution = prorate(weights, amount)
  order.lines.forEach((line: Any, i: number) => {
    const shareOfAmount = distribution[i] as number
    const itemWeights = Array.from({ length: line.quantity }).map(() => line.unitPrice)
    const itemDistribution = prorate(itemWeights, shareOfAmount)
    line.addAdjustment({
      amount: shareOfAmount,
      adjustmentSource: adjustment.adjustmentSource,
      description: adjustment.description,
      type: DISTRIBUTED,
      data: { itemDistribution },
    })
  })
}

/**
 * OrderCalculator.applyPromotions as 3.5.7 runs it (taxes and shipping left out): the item pass
 * re-tests every promotion for every line and recomputes the order totals after each adjustment;
 * then the order pass tests, applies and prorates.
 */
async function vendureFull(order: Any, promotions: Any[]): Promise<void> {
  const ctx = vendureCtx
  for (const line of order.lines) {
    line.clearAdjustments()
    for (const promotion of promotions) {
      const applicableOrState = await promotion.test(ctx, order)
      if (applicableOrState) {
        const state = typeof applicableOrState === 'object' ? applicableOrState : undefined
        const adjustment = await promotion.apply(ctx, { orderLine: line }, state)
        if (adjustment) {
          line.addAdjustment(adjustment)
          calculateOrderTotals(order)
        }
      }
    }
    calculateOrderTotals(order)
  }
  if (order.discounts.find((a: Any) => a.type === DISTRIBUTED)) {
    for (const line of order.lines) line.clearAdjustments(DISTRIBUTED)
  }
  calculateOrderTotals(order)
  const applicable: Any[] = []
  for (const p of promotions) if (await p.test(ctx, order)) applicable.push(p)
  for (const promotion of applicable) {
    const applicableOrState = await promotion.test(ctx, order)
    if (applicableOrState) {
      const state = typeof applicableOrState === 'object' ? applicableOrState : undefined
      const adjustment = await promotion.apply(ctx, { order }, state)
      if (adjustment && adjustment.amount !== 0) {
        distribute(order, adjustment)
        calculateOrderTotals(order)
      }
    }
  }
  calculateOrderTotals(order)
}

/** The least Vendure needs: test once, apply per line or once per order (+ prorate), one totals pass. */
async function vendureLean(order: Any, promotion: Any, workload: Workload): Promise<void> {
  const ctx = vendureCtx
  for (const line of order.lines) line.clearAdjustments()
  calculateOrderTotals(order)
  const applicableOrState = await promotion.test(ctx, order)
  if (!applicableOrState) return
  const state = typeof applicableOrState === 'object' ? applicableOrState : undefined
  if (workload === 'amount-off-items') {
    for (const line of order.lines) {
      const adjustment = await promotion.apply(ctx, { orderLine: line }, state)
      if (adjustment) line.addAdjustment(adjustment)
    }
  } else {
    const adjustment = await promotion.apply(ctx, { order }, state)
    if (adjustment && adjustment.amount !== 0) distribute(order, adjustment)
  }
  calculateOrderTotals(order)
}

function vendureLines(order: Any): number[] {
  return order.lines.map((l: Any) => -l.adjustments.reduce((s: number, a: Any) => s + a.amount, 0))
}

async function vendureOutcome(cart: Line[], workload: Workload, full: boolean): Promise<Outcome> {
  const order = vendureOrder(cart)
  const promotion = VENDURE_PROMOTIONS[workload]
  if (full) await vendureFull(order, [promotion])
  else await vendureLean(order, promotion, workload)
  const lines = vendureLines(order)
  return { total: lines.reduce((s, d) => s + d, 0), lines }
}

// ---------------------------------------------------------------------------------------------
// The floor: the arithmetic only, over the raw cart.

function floor(cart: Line[], workload: Workload): Outcome {
  const n = cart.length
  if (workload === 'percent-off-order') {
    let total = 0
    for (let i = 0; i < n; i++) {
      const l = cart[i] as Line
      total += l.price * l.quantity
    }
    return { total: divRound(total * PERCENT, 100, 'half-up'), lines: null }
  }
  const lines = new Array<number>(n)
  let total = 0
  for (let i = 0; i < n; i++) {
    const l = cart[i] as Line
    const d = l.product === 'p0' || l.product === 'p1' ? Math.min(AMOUNT * l.quantity, l.price * l.quantity) : 0
    lines[i] = d
    total += d
  }
  return { total, lines }
}

// ---------------------------------------------------------------------------------------------
// Agreement.

interface Agreement {
  carts: number
  totalsDiffer: number
  maxTotalDiff: number
  linesCompared: number
  linesDiffer: number
  maxLineDiff: number
}

function compare(a: Outcome, b: Outcome, acc: Agreement): void {
  acc.carts++
  const dt = Math.abs(a.total - b.total)
  if (dt !== 0) acc.totalsDiffer++
  acc.maxTotalDiff = Math.max(acc.maxTotalDiff, dt)
  if (a.lines === null || b.lines === null) return
  for (let i = 0; i < a.lines.length; i++) {
    const d = Math.abs((a.lines[i] as number) - (b.lines[i] as number))
    acc.linesCompared++
    if (d !== 0) acc.linesDiffer++
    acc.maxLineDiff = Math.max(acc.maxLineDiff, d)
  }
}

const newAgreement = (): Agreement => ({
  carts: 0,
  totalsDiffer: 0,
  maxTotalDiff: 0,
  linesCompared: 0,
  linesDiffer: 0,
  maxLineDiff: 0,
})

async function checkAgreement(): Promise<void> {
  console.log(`\n## Agreement (${CHECKED_CARTS} carts per size, seed 7)\n`)
  console.log(
    '| workload | lines | pair | carts | totals differ | max Δ total | lines compared | lines differ | max Δ line |',
  )
  console.log('|---|---:|---|---:|---:|---:|---:|---:|---:|')
  for (const workload of WORKLOADS) {
    for (const size of SIZES) {
      const carts = makeCarts(size, CHECKED_CARTS, 7)
      const pairs: Record<string, Agreement> = {
        'Medusa (rounded) vs ours': newAgreement(),
        'Vendure (OrderCalculator loop) vs ours': newAgreement(),
        'Vendure (lean) vs ours': newAgreement(),
        'floor vs ours': newAgreement(),
        'Medusa (rounded per line) vs Vendure per line': newAgreement(),
      }
      let medusaDrift = 0
      let medusaDriftCarts = 0
      for (const cart of carts) {
        const o = ourOutcome(ourInput(cart), workload)
        const m = medusaOutcome(cart, workload)
        const vf = await vendureOutcome(cart, workload, true)
        const vl = await vendureOutcome(cart, workload, false)
        const f = floor(cart, workload)
        compare(m, o, pairs['Medusa (rounded) vs ours'] as Agreement)
        compare(vf, o, pairs['Vendure (OrderCalculator loop) vs ours'] as Agreement)
        compare(vl, o, pairs['Vendure (lean) vs ours'] as Agreement)
        compare(f, o, pairs['floor vs ours'] as Agreement)
        compare(m, vf, pairs['Medusa (rounded per line) vs Vendure per line'] as Agreement)
        // Medusa's lines rounded one by one need not sum to the rounded total.
        const roundedSum = (m.lines as number[]).reduce((s, d) => s + d, 0)
        if (roundedSum !== m.total) medusaDriftCarts++
        medusaDrift = Math.max(medusaDrift, Math.abs(roundedSum - m.total))
      }
      for (const [pair, a] of Object.entries(pairs)) {
        console.log(
          `| ${workload} | ${size} | ${pair} | ${a.carts} | ${a.totalsDiffer} | ${a.maxTotalDiff} | ${a.linesCompared} | ${a.linesDiffer} | ${a.maxLineDiff} |`,
        )
      }
      console.log(
        `| ${workload} | ${size} | Medusa: Σ rounded lines vs rounded Σ | ${CHECKED_CARTS} | ${medusaDriftCarts} | ${medusaDrift} | | | |`,
      )
    }
  }
  // One worked example, for the notes: a cart whose 10% total ends in .5.
  const example = makeCarts(10, CHECKED_CARTS, 7).find((c) => {
    const t = c.reduce((s, l) => s + l.price * l.quantity, 0)
    return t % 10 === 5
  })
  if (example) {
    const t = example.reduce((s, l) => s + l.price * l.quantity, 0)
    const o = ourOutcome(ourInput(example), 'percent-off-order')
    const m = medusaOutcome(example, 'percent-off-order')
    const v = await vendureOutcome(example, 'percent-off-order', true)
    console.log(
      `\nExample, 10 lines, subtotal ${t}: ours ${o.total}, Medusa Σ ${m.raw?.reduce((s, x) => s.plus(x), new Decimal(0))} → ${m.total}, Vendure ${v.total}`,
    )
    console.log(`  Medusa raw lines: ${m.raw?.join(', ')}`)
    console.log(`  Vendure lines:    ${v.lines?.join(', ')}`)
  }
}

// ---------------------------------------------------------------------------------------------
// Timing.

const TIME_MS = Number(process.env.BENCH_TIME_MS ?? 600)
const WARMUP_MS = Number(process.env.BENCH_WARMUP_MS ?? 200)

interface Row {
  workload: Workload
  size: number
  name: string
  medianUs: number
  samples: number
}

async function time(): Promise<Row[]> {
  const rows: Row[] = []
  for (const workload of WORKLOADS) {
    for (const size of SIZES) {
      const carts = makeCarts(size, TIMED_CARTS, 42)
      const inputs = carts.map(ourInput)
      const contexts = carts.map(medusaContext)
      const orders = carts.map(vendureOrder)
      const medusaPromotions = [MEDUSA_PROMOTIONS[workload]]
      const vendurePromotion = VENDURE_PROMOTIONS[workload]
      // Each task cycles through the same carts, so a run is not one cart's shape.
      let k1 = 0
      let k2 = 0
      let k3 = 0
      let k4 = 0
      let k5 = 0
      let k6 = 0
      // Ours without normalizeOrder: the step alone, on orders normalized once.
      const normalized = inputs.map((input) => normalizeOrder(input))
      const step = OUR_STEPS[workload]
      const bench = new Bench({ time: TIME_MS, warmupTime: WARMUP_MS })
      bench
        .add('ours', () => {
          ours(inputs[k1++ % TIMED_CARTS] as OrderInput, workload)
        })
        .add('ours (applyStep only)', () => {
          applyStep(normalized[k6++ % TIMED_CARTS] as CalculatedOrder, step)
        })
        .add('Medusa', () => {
          medusa(medusaPromotions, contexts[k2++ % TIMED_CARTS] as MedusaContext)
        })
        .add('Vendure (lean)', async () => {
          await vendureLean(orders[k3++ % TIMED_CARTS], vendurePromotion, workload)
        })
        .add('Vendure (OrderCalculator loop)', async () => {
          await vendureFull(orders[k4++ % TIMED_CARTS], [vendurePromotion])
        })
        .add('floor', () => {
          floor(carts[k5++ % TIMED_CARTS] as Line[], workload)
        })
      await bench.run()
      for (const task of bench.tasks) {
        const r = task.result as Any
        rows.push({
          workload,
          size,
          name: task.name,
          medianUs: r.latency.p50 * 1000,
          samples: r.latency.samplesCount ?? r.latency.samples?.length ?? 0,
        })
      }
      process.stderr.write(`timed ${workload} × ${size}\n`)
    }
  }
  return rows
}

function fmt(us: number): string {
  return us >= 100 ? us.toFixed(0) : us >= 10 ? us.toFixed(1) : us.toFixed(2)
}

function report(rows: Row[]): void {
  const get = (w: Workload, s: number, n: string) =>
    (rows.find((r) => r.workload === w && r.size === s && r.name === n) as Row).medianUs
  console.log('\n## Medians (µs per calculation)\n')
  console.log(
    '| workload | lines | ours | ours (applyStep only) | Medusa | Vendure (lean) | Vendure (OrderCalculator loop) | floor | Medusa / ours | Vendure lean / ours | Vendure loop / ours | ours / floor |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const w of WORKLOADS) {
    for (const s of SIZES) {
      const o = get(w, s, 'ours')
      const oa = get(w, s, 'ours (applyStep only)')
      const m = get(w, s, 'Medusa')
      const vl = get(w, s, 'Vendure (lean)')
      const vf = get(w, s, 'Vendure (OrderCalculator loop)')
      const f = get(w, s, 'floor')
      console.log(
        `| ${w} | ${s} | ${fmt(o)} | ${fmt(oa)} | ${fmt(m)} | ${fmt(vl)} | ${fmt(vf)} | ${fmt(f)} | ${(m / o).toFixed(1)}× | ${(vl / o).toFixed(1)}× | ${(vf / o).toFixed(1)}× | ${(o / f).toFixed(1)}× |`,
      )
    }
  }
}

async function main(): Promise<void> {
  console.log(`Node ${process.version}; tinybench time ${TIME_MS} ms, warm-up ${WARMUP_MS} ms per task`)
  await checkAgreement()
  if (process.env.BENCH_CHECK_ONLY) return
  report(await time())
}

await main()
