import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // A pure library: sharing the module graph between files is safe and saves seconds per file.
    isolate: false,
    // The JSON report gives .ci/run the plain `N passed, N failed` line (docs/design.md#toolchain).
    reporters: ['default', 'json'],
    outputFile: { json: '.vitest-report.json' },
    benchmark: { include: ['bench/**/*.bench.ts'] },
  },
})
