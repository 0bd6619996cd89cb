import type { Decimal } from 'decimal.js'
import { decimal } from '../../money'
import {
  calendarDate,
  datePart,
  type FormulaDate,
  type FormulaValue,
  instant,
  parseDateText,
  toLocalDate,
} from './dates'
import { FormulaFailure } from './failure'
import { type FormulaContext, type FormulaItem, toMajorUnits } from './formula-context'

/**
 * The operands a formula names (docs/behaviour.md#formulas): the order and its lines, counters, metadata-free
 * values and dates.
 */
export function operand(name: string, pos: number, ctx: FormulaContext): FormulaValue {
  switch (name) {
    case 'TRUE':
      return true
    case 'FALSE':
      return false
    case 'ORDER_AMOUNT':
      return toMajorUnits(needOrder(ctx, pos).amount)
    case 'ORDER_ITEMS_QUANTITY':
      return decimal(needOrder(ctx, pos).items.filter((i) => i.quantity > 0).length)
    case 'ORDER_UNITS_QUANTITY':
      return decimal(needOrder(ctx, pos).items.reduce((s, i) => s + Math.max(0, i.quantity), 0))
    case 'VOUCHER_REDEMPTION_QUANTITY':
      return count(ctx.redeemable?.redemption_quantity, name, pos)
    case 'VOUCHER_REDEEMED_QUANTITY':
      return count(ctx.redeemable?.redeemed_quantity, name, pos)
    case 'VOUCHER_PUBLISH_COUNT':
      return count(ctx.redeemable?.publish_count, name, pos)
    case 'TODAY':
      return calendarDate(today(ctx, pos))
    case 'NOW':
      return instant(needNow(ctx, pos).getTime())
    case 'CUSTOMER_BIRTHDATE':
      return storedDate(ctx.customer?.birthdate, name, pos, ctx, true)
    case 'VOUCHER_START_DATE':
      return storedDate(ctx.voucher?.start_date, name, pos, ctx, false)
    case 'VOUCHER_EXPIRATION_DATE':
      return storedDate(ctx.voucher?.expiration_date, name, pos, ctx, false)
    case 'PROMOTION_TIER_START_DATE':
      return storedDate(ctx.promotion_tier?.start_date, name, pos, ctx, false)
    case 'PROMOTION_TIER_EXPIRATION_DATE':
      return storedDate(ctx.promotion_tier?.expiration_date, name, pos, ctx, false)
  }
  const field = ITEM_FIELDS.find((f) => name.endsWith(f))
  if (field !== undefined) {
    const prefix = name.slice(0, name.length - field.length)
    if (prefix === 'ORDER_ITEM_') return itemField(needItem(ctx, pos), field)
    if (prefix === 'CHEAPEST_ORDER_ITEM_' || prefix === 'MOST_EXPENSIVE_ORDER_ITEM_') {
      const item = extremeItem(needOrder(ctx, pos).items, prefix === 'CHEAPEST_ORDER_ITEM_' ? 1 : -1)
      if (item === null) throw new FormulaFailure('missing_value', `${name}: the order has no items`, pos)
      return itemField(item, field)
    }
  }
  if (name === 'ORDER_ITEM_QUANTITY') return decimal(needItem(ctx, pos).quantity)
  throw new FormulaFailure('unknown_operand', `unknown operand ${name}`, pos)
}

const ITEM_FIELDS = ['PRICE', 'AMOUNT', 'SUBTOTAL', 'UNITS_QUANTITY'] as const
type ItemField = (typeof ITEM_FIELDS)[number]

export function itemField(item: FormulaItem, field: ItemField): Decimal {
  switch (field) {
    case 'PRICE':
      return toMajorUnits(item.price)
    case 'AMOUNT':
      return toMajorUnits(item.amount)
    case 'SUBTOTAL':
      return toMajorUnits(item.subtotal_amount)
    case 'UNITS_QUANTITY':
      return decimal(item.quantity)
    default: {
      const _never: never = field
      return _never
    }
  }
}

/**
 * The cheapest (or most expensive) line: by unit price, then the lower subtotal, then the first
 * (docs/concepts.md#targeting).
 */
export function extremeItem(items: readonly FormulaItem[], direction: 1 | -1): FormulaItem | null {
  let best: FormulaItem | null = null
  for (const item of items) {
    if (item.quantity <= 0) continue
    if (
      best === null ||
      (item.price - best.price) * direction < 0 ||
      (item.price === best.price && item.subtotal_amount < best.subtotal_amount)
    ) {
      best = item
    }
  }
  return best
}

export function needOrder(ctx: FormulaContext, pos: number): NonNullable<FormulaContext['order']> {
  if (ctx.order == null) throw new FormulaFailure('missing_value', 'the formula reads the order and there is none', pos)
  return ctx.order
}

export function needItem(ctx: FormulaContext, pos: number): FormulaItem {
  if (ctx.item == null) {
    throw new FormulaFailure('item_required', 'ORDER_ITEM_* operands need an order line to be evaluated for', pos)
  }
  return ctx.item
}

export function count(value: number | null | undefined, name: string, pos: number): Decimal {
  if (value == null) throw new FormulaFailure('missing_value', `${name} is not known here`, pos)
  return decimal(value)
}

export function zoneOf(ctx: FormulaContext): string {
  return ctx.timeZone ?? 'UTC'
}

export function needNow(ctx: FormulaContext, pos: number): Date {
  // Date operands need the evaluation's clock; without it the static value applies.
  if (ctx.now === undefined)
    throw new FormulaFailure('missing_value', 'the formula reads the date and no "now" is given', pos)
  return ctx.now
}

export function today(ctx: FormulaContext, pos: number) {
  return toLocalDate(instant(needNow(ctx, pos).getTime()), zoneOf(ctx))
}

/**
 * A date field of the context. The validity dates are instants; a birthdate is a calendar date (its
 * `YYYY-MM-DD` part as written: a birthday does not move with the zone). Reading one still needs
 * `now`, so that every date operand behaves alike when the caller gives no clock.
 */
export function storedDate(
  value: string | null | undefined,
  name: string,
  pos: number,
  ctx: FormulaContext,
  calendar: boolean,
): FormulaDate {
  needNow(ctx, pos)
  if (value == null) throw new FormulaFailure('missing_value', `${name} is not set`, pos)
  const date = calendar ? datePart(value) : parseDateText(value, zoneOf(ctx))
  if (date === null) throw new FormulaFailure('missing_value', `${name} "${value}" is not a date`, pos)
  return date
}
