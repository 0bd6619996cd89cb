/**
 * Import rules for src/ (`npm run check:imports`, part of `npm test`): no import circle, the pure
 * rules never reach for operations, storage or the engine, and operations compose at the top
 * (docs/design.md#layers).
 */

/**
 * The domain folders of src/operations/, lowest first. A file that is not a namespace file imports its
 * own folder, `kernel/`, the folders listed before its own, and the record files (`*-records.ts`) of
 * any folder; `kernel/` imports no domain:
 *
 *   kernel  <-  shop  <-  vouchers  <-  campaigns  <-  loyalty  <-  referrals  <-  checkout  <-  admin
 *
 * Namespace files (the operation families `createEngine` binds, named like them) sit on top: they may
 * import any domain, and no operation imports them.
 */
const DOMAINS = ['shop', 'vouchers', 'campaigns', 'loyalty', 'referrals', 'checkout', 'admin']
const NAMESPACES = [
  'shop/(customers|orders|products|events)',
  'campaigns/(campaigns|promotions|templates|categories|validation-rules|stacking-rules)',
  'vouchers/(vouchers|publications)',
  'checkout/(validations|redemptions|qualifications)',
  'loyalty/(loyalties|estimates|rewards)',
  'referrals/referrals',
  'admin/(auth|exports|files|metadata-schemas|maintenance|async-actions)',
]
const NAMESPACE_FILES = `^src/operations/(${NAMESPACES.join('|')})[.]ts$`
const RECORD_FILES = '^src/operations/[a-z-]+/[a-z-]+-records[.]ts$'

const domainOrder = DOMAINS.slice(0, -1).map((domain, i) => ({
  name: `domain-order-${domain}`,
  severity: 'error',
  comment: `src/operations/${domain}/ may import ${['kernel', ...DOMAINS.slice(0, i)].join(', ')} and record files only (docs/design.md#layers).`,
  from: { path: `^src/operations/${domain}/`, pathNot: NAMESPACE_FILES },
  to: { path: `^src/operations/(${DOMAINS.slice(i + 1).join('|')})/`, pathNot: RECORD_FILES },
}))

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
    {
      name: 'kernel-imports-no-domain',
      severity: 'error',
      comment: 'src/operations/kernel/ is the unit of work every domain runs on: it imports none of them.',
      from: { path: '^src/operations/kernel/' },
      to: { path: '^src/operations/', pathNot: '^src/operations/kernel/' },
    },
    {
      name: 'namespaces-compose-at-the-top',
      severity: 'error',
      comment:
        'A namespace file (an operation family) is imported by no other operation: what operations share lives in record and step files.',
      from: { path: '^src/operations/' },
      to: { path: NAMESPACE_FILES },
    },
    ...domainOrder,
    {
      name: 'valibot-through-schema',
      severity: 'error',
      comment:
        'Schemas import valibot through src/schema/valibot.ts, whose object schemas refuse an array (valibot reads it as an object).',
      from: { path: '^src/', pathNot: '^src/schema/valibot[.]ts$' },
      to: { path: 'node_modules/valibot/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}
