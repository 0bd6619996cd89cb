import type { testEngine } from '../support/engine'

type Engine = ReturnType<typeof testEngine>['engine']

/** A DONE loyalty program with `count` cards (the async generation has run). */
export async function program(engine: Engine, body: Record<string, unknown> = {}) {
  const created = await engine.loyalties.create({
    name: 'Club',
    type: 'AUTO_UPDATE',
    vouchers_count: 2,
    voucher: { type: 'LOYALTY_CARD', loyalty_card: { points: 0 }, code_config: { pattern: 'CLUB-####' } },
    ...body,
  })
  await engine.asyncActions.runPending()
  return engine.loyalties.get(created.id)
}

export async function member(engine: Engine, campaignId: string, sourceId = 'alice') {
  return engine.loyalties.createMember(campaignId, { customer: { source_id: sourceId } })
}
