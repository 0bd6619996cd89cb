import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { index: 'src/index.ts', testing: 'src/testing.ts', postgres: 'src/postgres.ts' },
  format: ['esm', 'cjs'],
  // tsup injects baseUrl, which TypeScript 6 deprecates (reference/toolchain.md C4).
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  sourcemap: true,
  clean: true,
  target: 'node20',
  external: ['vitest', 'pg'],
})
