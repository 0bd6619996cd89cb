import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    // The JSON report gives .ci/run the plain `N passed, N failed` line (docs/design.md#toolchain).
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
    benchmark: { include: ['bench/**/*.bench.ts'] },
    projects: [
      {
        extends: true,
        test: {
          name: 'memory',
          include: ['test/**/*.test.ts'],
          exclude: ['test/postgres/**'],
          // A pure library: sharing the module graph between files is safe and saves seconds per file.
          isolate: false,
          // Property tests run hundreds of operations and share 2 cores with the database projects:
          // one took 4.5 s alone against vitest's 5 s default. A safety limit, no timing is asserted.
          testTimeout: 30_000,
        },
      },
      {
        extends: true,
        test: {
          name: 'postgres',
          include: ['test/postgres/**/*.test.ts'],
          exclude: ['test/postgres/processes.test.ts', 'test/postgres/hot-rows.test.ts'],
          globalSetup: ['test/postgres/global-setup.ts'],
          // Every test here waits on a database server sharing the machine: at load 18 on 2 cores the
          // migrations and the 50-way commits took 2–2.6 s against vitest's 5 s default. A safety limit,
          // no timing is asserted.
          testTimeout: 30_000,
          hookTimeout: 60_000,
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // The operation suites again, every testEngine() on PostgreSQL.
          name: 'postgres-operations',
          include: ['test/operations/**/*.test.ts', 'test/conformance/**/*.test.ts', 'test/fidelity/**/*.test.ts'],
          // Page-size bounds of every list endpoint (101 entities each): listing is proven by the contract suite.
          // 1,000-way races in one process take minutes on a database: the budget rules, quantity and
          // balances race across processes in test/postgres/processes.test.ts instead.
          exclude: [
            'test/operations/limits.test.ts',
            'test/operations/checkout/budgets-concurrency.prop.test.ts',
            'test/operations/hot-rows.prop.test.ts',
          ],
          globalSetup: ['test/postgres/global-setup.ts'],
          setupFiles: ['test/postgres/engine-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 60_000,
          isolate: false,
        },
      },
      {
        extends: true,
        test: {
          // Child processes racing on one database: one file at a time, so they do not starve each other.
          name: 'postgres-processes',
          include: ['test/postgres/processes.test.ts', 'test/postgres/hot-rows.test.ts'],
          globalSetup: ['test/postgres/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 180_000,
          hookTimeout: 60_000,
        },
      },
    ],
  },
})
