import type { CalculatedOrder, CalculatedOrderItem } from '../../model/order'
import type { ApplicableToEntry } from '../../model/validation-rule'
import { allocate } from '../../money'
import type { AppliedLine } from './discount-types'
import type { TargetGroup } from './target-lines'

/**
 * Caps: "the lowest possible discount" wins (docs/concepts.md#caps). Per-line caps are taken by the type
 * modules while they compute a line; the caps over several lines are taken here, greedily in
 * application order: the lines the targeting put first keep their discount, later ones are cut.
 */

/** What is left to discount on one line: a line's discount never exceeds its amount. */
export function lineRoom(item: CalculatedOrderItem): number {
  return item.amount - item.discount_amount
}

/** What is left to pay on the order: order-level discounts never push the total below zero. */
export function orderRoom(order: CalculatedOrder): number {
  const room = order.amount - order.total_discount_amount
  return Math.max(room, 0)
}

/**
 * What line discounts may still add: the item amounts not yet discounted at order or item level. When the
 * order `amount` was sent inconsistent with its items (docs/behaviour.md#declared-amounts), this follows the
 * items and the order total is clamped at zero instead.
 */
export function itemsRoom(order: CalculatedOrder): number {
  let items = 0
  for (const item of order.items) items += item.amount
  const room = items - order.total_discount_amount
  return Math.max(room, 0)
}

export function minCap(value: number, cap: number | null | undefined): number {
  return cap != null && cap >= 0 && cap < value ? cap : value
}

/** Takes every cap spanning several lines, in place; returns the sum left. */
export function capLines(
  lines: AppliedLine[],
  lineGroups: readonly number[],
  groups: readonly TargetGroup[],
  aggregatedLimit: number | null | undefined,
  room: number,
): number {
  let left = aggregatedLimit != null && aggregatedLimit >= 0 && aggregatedLimit < room ? aggregatedLimit : room
  let groupLeft: number[] | undefined
  for (let g = 0; g < groups.length; g++) {
    const limit = (groups[g] as TargetGroup).entry?.aggregated_amount_limit
    if (limit != null && limit >= 0) {
      groupLeft ??= new Array(groups.length).fill(Number.POSITIVE_INFINITY)
      groupLeft[g] = limit
    }
  }
  let total = 0
  for (let k = 0; k < lines.length; k++) {
    const line = lines[k] as AppliedLine
    let d = line.discount_amount
    if (groupLeft !== undefined) {
      const g = lineGroups[k] as number
      const gl = groupLeft[g] as number
      if (d > gl) d = gl
      groupLeft[g] = gl - d
    }
    if (d > left) d = left
    left -= d
    if (d !== line.discount_amount) {
      line.discount_amount = d
      if (d === 0) line.discount_quantity = 0
    }
    total += d
  }
  return total
}

/** Per-line cap from the targeting entry (`amount_limit`: maximum discount per line). */
export function entryLineCap(entry: ApplicableToEntry | null, room: number): number {
  return minCap(room, entry?.amount_limit)
}

/**
 * Splits `total` over `weights` by largest remainder, never giving a line more than its cap: what a
 * capped line cannot take is split again over the others. The parts sum to `min(total, Σ caps of the
 * lines with weight)`.
 */
export function allocateCapped(total: number, weights: readonly number[], caps: readonly number[]): number[] {
  const n = weights.length
  let capacity = 0
  let everyLine = true
  for (let i = 0; i < n; i++) {
    if ((weights[i] as number) > 0 && (caps[i] as number) > 0) capacity += caps[i] as number
    else everyLine = false
  }
  const wanted = Math.min(total, capacity)
  // Usually no line is full before its share: one split settles it.
  if (everyLine) {
    const parts = splitByWeight(wanted, weights)
    let fits = true
    for (let i = 0; i < n && fits; i++) fits = (parts[i] as number) <= (caps[i] as number)
    if (fits) return parts
  }
  const parts: number[] = new Array(n).fill(0)
  let active: number[] = []
  for (let i = 0; i < n; i++) if ((weights[i] as number) > 0 && (caps[i] as number) > 0) active.push(i)
  let remaining = wanted
  while (remaining > 0 && active.length > 0) {
    const shares = splitByWeight(
      remaining,
      active.map((i) => weights[i] as number),
    )
    let overflow = 0
    const next: number[] = []
    for (let k = 0; k < active.length; k++) {
      const i = active[k] as number
      const share = shares[k] as number
      const space = (caps[i] as number) - (parts[i] as number)
      const give = Math.min(share, space)
      parts[i] = (parts[i] as number) + give
      overflow += share - give
      if ((parts[i] as number) < (caps[i] as number)) next.push(i)
    }
    remaining = overflow
    active = next
  }
  return parts
}

/**
 * Largest remainder, as `allocate` in money.ts (same parts, ties to the earlier line), on plain
 * numbers while every `total × weight` stays a safe integer; beyond that, `allocate` itself (BigInt).
 * A proportional step runs this over every line, so the BigInt path would dominate it.
 */
export function splitByWeight(total: number, weights: readonly number[]): number[] {
  const n = weights.length
  let sum = 0
  let max = 0
  for (let i = 0; i < n; i++) {
    const w = weights[i] as number
    sum += w
    if (w > max) max = w
  }
  if (total < 0 || !Number.isSafeInteger(sum) || !Number.isSafeInteger(total * max)) return allocate(total, weights)
  const parts: number[] = new Array(n)
  if (sum === 0 || total === 0) return parts.fill(0)
  const remainders: number[] = new Array(n)
  let given = 0
  for (let i = 0; i < n; i++) {
    const exact = total * (weights[i] as number)
    let q = Math.floor(exact / sum)
    let r = exact - q * sum
    if (r < 0) {
      q -= 1
      r += sum
    } else if (r >= sum) {
      q += 1
      r -= sum
    }
    parts[i] = q
    remainders[i] = r
    given += q
  }
  let left = total - given
  if (left === 0) return parts
  const order: number[] = []
  for (let i = 0; i < n; i++) if ((weights[i] as number) > 0) order.push(i)
  order.sort((a, b) => (remainders[b] as number) - (remainders[a] as number) || a - b)
  for (let k = 0; k < order.length && left > 0; k++, left--) {
    const i = order[k] as number
    parts[i] = (parts[i] as number) + 1
  }
  return parts
}
