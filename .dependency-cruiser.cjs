/**
 * Import rules for src/ (`npm run check:imports`, part of `npm test`): no import circle, and the pure
 * rules never reach for operations, storage or the engine (docs/design.md#layers).
 */

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
      name: 'storage-is-the-port',
      severity: 'error',
      comment:
        'src/storage/ is the contract adapters implement (promo-engine/storage): it names stored entities and their shapes, never operations, stores or the engine.',
      from: { path: '^src/storage/' },
      to: { path: '^src/(operations/|memory/|postgres/|http/|testing/|engine[.]ts$|index[.]ts$)' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
}
