/**
 * Import rules for src/ (`npm run check:imports`, part of `npm test`): no import circle, and the pure
 * rules never reach for operations, storage or the engine (docs/design.md#layers).
 */

/**
 * Circles among the operation files that predate this check. They go with the load-decide-commit
 * change (operations import loaders, rules and the commit helper, never each other); delete each line
 * as its circle disappears. Any circle not listed here fails the check. Each is a chain of files under
 * src/operations/, written `a > b > c` (c imports a).
 */
const KNOWN_OPERATION_CIRCLES = [
  'context.ts > async-actions.ts',
  'loyalty-earning.ts > auto-redeem.ts',
  'loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts',
  'reward-redemption.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts',
  'reward-redemption.ts > loyalties.ts',
  'customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > loyalties.ts',
  'customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > orders.ts',
  'loyalty-members.ts > publications.ts > customers.ts > loyalty-earning.ts',
  'loyalty-members.ts > publications.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts',
  'loyalty-members.ts > publications.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > loyalties.ts',
  'vouchers.ts > stackable/session.ts > stackable/load.ts',
  'stackable/session.ts > stackable/redeem.ts',
  'stackable/redeem.ts > redemptions.ts',
  'stackable/rollback.ts > redemptions.ts',
  'stackable/redeem.ts > redemptions.ts > stackable/rollback.ts',
  'vouchers.ts > stackable/session.ts > stackable/redeem.ts > referrals.ts',
  'referrals.ts > publications.ts > vouchers.ts > stackable/session.ts > stackable/redeem.ts',
  'vouchers.ts > stackable/session.ts > stackable/load.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > loyalties.ts > loyalty-members.ts > publications.ts',
  'customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > loyalties.ts > loyalty-members.ts > publications.ts > vouchers.ts > stackable/session.ts > stackable/redeem.ts',
  'customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > loyalties.ts > loyalty-members.ts > publications.ts > vouchers.ts > stackable/session.ts > stackable/redeem.ts > redemptions.ts',
  'stackable/load.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > loyalties.ts > loyalty-members.ts > publications.ts > vouchers.ts > stackable/session.ts > stackable/redeem.ts',
  'stackable/load.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > loyalties.ts > loyalty-members.ts > publications.ts > vouchers.ts > stackable/session.ts > stackable/redeem.ts > redemptions.ts',
  // The same tangle through campaign-credit.ts (one crediting code for referee rewards and CAMPAIGN rewards).
  'auto-redeem.ts > reward-redemption.ts > campaign-credit.ts > loyalty-earning.ts',
  'campaign-credit.ts > loyalty-members.ts > publications.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts',
  'publications.ts > vouchers.ts > stackable/session.ts > stackable/load.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > campaign-credit.ts > loyalty-members.ts',
  'redemptions.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > campaign-credit.ts > loyalty-members.ts > publications.ts > vouchers.ts > stackable/session.ts > stackable/redeem.ts',
  'redemptions.ts > stackable/load.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > campaign-credit.ts > loyalty-members.ts > publications.ts > vouchers.ts > stackable/session.ts > stackable/redeem.ts',
  'stackable/redeem.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > campaign-credit.ts > loyalty-members.ts > publications.ts > vouchers.ts > stackable/session.ts',
  'stackable/redeem.ts > referrals.ts > campaign-credit.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > loyalties.ts > loyalty-members.ts > publications.ts > vouchers.ts > stackable/session.ts',
  'stackable/redeem.ts > stackable/load.ts > customers.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > campaign-credit.ts > loyalty-members.ts > publications.ts > vouchers.ts > stackable/session.ts',
  'stackable/rollback.ts > referrals.ts > campaign-credit.ts > loyalty-earning.ts > auto-redeem.ts > reward-redemption.ts > loyalties.ts > loyalty-members.ts > publications.ts > vouchers.ts > stackable/session.ts > stackable/redeem.ts > redemptions.ts',
]

module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'An import circle in src/ (type-only imports count: they tie the modules together too).',
      from: { path: '^src/' },
      to: { circular: true },
    },
    {
      name: 'core-without-postgres',
      severity: 'error',
      comment: 'promo-engine/postgres is a subpath with an optional peer (pg): nothing else in src/ imports it.',
      from: { path: '^src/', pathNot: '^src/postgres' },
      to: { path: '^src/postgres' },
    },
    {
      name: 'rules-are-pure',
      severity: 'error',
      comment: 'src/rules/ takes plain data: it may not import operations, storage or the engine.',
      from: { path: '^src/rules/' },
      to: { path: '^src/(operations/|memory/|engine[.]ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // A known circle matches whatever module of it the report starts from (same members, same length).
    knownViolations: KNOWN_OPERATION_CIRCLES.map((chain) => {
      const cycle = chain.split(' > ').map((name) => ({ name: `src/operations/${name}`, dependencyTypes: [] }))
      return {
        type: 'cycle',
        from: cycle[0].name,
        to: cycle[1].name,
        rule: { severity: 'error', name: 'no-circular' },
        cycle,
      }
    }),
  },
}
