/**
 * What the attempts of one engine that have not finished yet hold (docs/storage.md#contention): the
 * entities they bump with a guard and the free codes they picked, each counted once per attempt; per
 * guarded field, what their increments add together; and the newest value of the field its commits
 * reported. Requests of one process see each other through it: a publication skips codes another
 * one picked, and a redemption prepares the answer to a failed guard only when what is in flight
 * could pass the bound.
 */
export class InFlight {
  private readonly holds = new Map<string, number>()
  private readonly sums = new Map<string, { attempts: number; sum: number }>()
  /** The newest stored value commits reported per guarded field: the most recent few thousand. */
  private readonly seen = new Map<string, number>()

  add(slot: string): void {
    this.holds.set(slot, (this.holds.get(slot) ?? 0) + 1)
  }

  remove(slot: string): void {
    const n = (this.holds.get(slot) ?? 0) - 1
    if (n > 0) this.holds.set(slot, n)
    else this.holds.delete(slot)
  }

  /** How many attempts in flight hold `collection/id`. */
  count(slot: string): number {
    return this.holds.get(slot) ?? 0
  }

  /** An attempt's guarded increment of a field (`collection/id:path`), until it ends. */
  pend(field: string, by: number): void {
    const f = this.sums.get(field) ?? { attempts: 0, sum: 0 }
    f.attempts += 1
    f.sum += by
    this.sums.set(field, f)
  }

  unpend(field: string, by: number): void {
    const f = this.sums.get(field)
    if (!f) return
    f.attempts -= 1
    f.sum -= by
    if (f.attempts <= 0) this.sums.delete(field)
  }

  /** A stored value of a guarded field, as a commit reported it. */
  saw(field: string, value: number): void {
    this.seen.delete(field)
    this.seen.set(field, value)
    if (this.seen.size > SEEN_FIELDS) this.seen.delete(this.seen.keys().next().value as string)
  }

  /** What the attempts in flight add to a field, and the newest stored value a commit reported. */
  field(field: string): { sum: number; seen: number | undefined } {
    return { sum: this.sums.get(field)?.sum ?? 0, seen: this.seen.get(field) }
  }
}

/** How many guarded fields `InFlight` remembers the newest value of. */
const SEEN_FIELDS = 10_000
