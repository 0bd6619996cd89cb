import { EngineError } from '../../errors'
import type { UnitDiscount, UnitEffect, UnitManyDiscount, UnitSpec } from '../../model/discount'
import type { CalculatedOrderItem } from '../../model/order'
import { capLines, itemsRoom } from './caps'
import type { AppliedLine, CatalogPrices } from './discount-types'
import type { StepContext, StepPlan } from './step-plan'

/**
 * UNIT: free units of one product or SKU (`unit_type`; free shipping is `prod_5h1pp1ng`).
 * ADD_MISSING_ITEMS tops the line up to `unit_off` units, ADD_NEW_ITEMS always adds `unit_off`; either
 * way `unit_off` units (× bundles) are discounted at the line's unit price, or the catalogue price
 * the caller passed for a product not in the order yet (0 when none: the shipping product's default).
 */
export function unitPlan(discount: UnitDiscount | UnitManyDiscount, ctx: StepContext): StepPlan {
  const specs: readonly UnitSpec[] =
    discount.effect === 'ADD_MANY_ITEMS'
      ? discount.units
      : [{ ...discount, effect: discount.effect ?? 'ADD_MISSING_ITEMS' } as UnitSpec]
  const items = ctx.order.items
  const newItems: CalculatedOrderItem[] = []
  const byIndex = new Map<number, AppliedLine>()
  const lines: AppliedLine[] = []
  let added = 0

  for (let s = 0; s < specs.length; s++) {
    const spec = specs[s] as UnitSpec
    const unitOff = spec.unit_off
    if (!Number.isSafeInteger(unitOff) || unitOff < 0) {
      throw EngineError.invalid(`discount.units[${s}].unit_off`, `must be a non-negative integer, got ${unitOff}`)
    }
    const units = unitOff * ctx.multiplier
    if (units === 0) continue
    let index = findLine(items, spec.unit_type)
    let item: CalculatedOrderItem
    if (index === -1) {
      const found = findLine(newItems, spec.unit_type)
      if (found === -1) {
        item = newLine(spec, ctx.prices)
        newItems.push(item)
        index = items.length + newItems.length - 1
      } else {
        item = newItems[found] as CalculatedOrderItem
        index = items.length + found
      }
    } else {
      item = items[index] as CalculatedOrderItem
      // ONCE: a line an earlier step discounted takes no further discount, free units included.
      if (ctx.once && (item.discount_amount > 0 || item.discount_quantity > 0)) continue
    }
    let line = byIndex.get(index)
    if (line === undefined) {
      line = { index, discount_amount: 0, discount_quantity: 0, added_quantity: 0 }
      byIndex.set(index, line)
      lines.push(line)
    }
    const have = item.quantity + line.added_quantity
    const add = addedUnits(spec.effect, units, have)
    line.added_quantity += add
    added += add * item.price
    const room = item.amount + line.added_quantity * item.price - item.discount_amount - line.discount_amount
    const value = units * item.price
    line.discount_amount += Math.min(value, room)
    line.discount_quantity += units
  }

  capLines(lines, [], [], discount.aggregated_amount_limit, itemsRoom(ctx.order) + added)
  return { orderDiscount: 0, lines, newItems }
}

function addedUnits(effect: UnitEffect, units: number, have: number): number {
  switch (effect) {
    case 'ADD_NEW_ITEMS':
      return units
    case 'ADD_MISSING_ITEMS':
      return units > have ? units - have : 0
    default: {
      const _never: never = effect
      return _never
    }
  }
}

/** The line holding `unitType`: a SKU line by its SKU id first, else a line of that product. */
function findLine(items: readonly CalculatedOrderItem[], unitType: string): number {
  for (let i = 0; i < items.length; i++) if ((items[i] as CalculatedOrderItem).sku_id === unitType) return i
  for (let i = 0; i < items.length; i++) if ((items[i] as CalculatedOrderItem).product_id === unitType) return i
  return -1
}

function newLine(spec: UnitSpec, prices: CatalogPrices | undefined): CalculatedOrderItem {
  const isSku = spec.sku !== undefined || spec.unit_type.startsWith('sku_')
  const price = (isSku ? prices?.sku?.[spec.unit_type] : prices?.product?.[spec.unit_type]) ?? 0
  if (!Number.isSafeInteger(price) || price < 0) {
    throw EngineError.invalid(
      `prices.${isSku ? 'sku' : 'product'}.${spec.unit_type}`,
      'must be a non-negative safe integer',
    )
  }
  const item: CalculatedOrderItem = {
    object: 'order_item',
    quantity: 0,
    discount_quantity: 0,
    initial_quantity: 0,
    amount: 0,
    discount_amount: 0,
    applied_discount_amount: 0,
    applied_discount_quantity: 0,
    applied_quantity: 0,
    applied_quantity_amount: 0,
    initial_amount: 0,
    price,
    subtotal_amount: 0,
    metadata: {},
  }
  if (isSku) {
    item.sku_id = spec.unit_type
    item.related_object = 'sku'
    if (spec.product?.id !== undefined) item.product_id = spec.product.id
  } else {
    item.product_id = spec.unit_type
    item.related_object = 'product'
  }
  if (spec.product !== undefined) item.product = { id: spec.product.id, ...nameAndSource(spec.product) }
  if (spec.sku !== undefined) item.sku = { id: spec.sku.id, ...nameAndSource(spec.sku) }
  return item
}

function nameAndSource(ref: { source_id?: string | null; name?: string | null }): {
  source_id?: string | null
  name?: string | null
} {
  const out: { source_id?: string | null; name?: string | null } = {}
  if (ref.source_id !== undefined) out.source_id = ref.source_id
  if (ref.name !== undefined) out.name = ref.name
  return out
}
