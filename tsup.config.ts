import { defineConfig } from 'tsup'

export default defineConfig({
  entry: {
    index: 'src/index.ts',
    testing: 'src/testing.ts',
    http: 'src/http/index.ts',
    postgres: 'src/postgres.ts',
    storage: 'src/storage/index.ts',
  },
  format: ['esm', 'cjs'],
  // tsup injects baseUrl, which TypeScript 6 deprecates (docs/design.md#toolchain).
  dts: { compilerOptions: { ignoreDeprecations: '6.0' } },
  // No source maps: maps without their sources help nobody and tripled the package (docs/design.md#toolchain).
  sourcemap: false,
  clean: true,
  target: 'node20',
  external: ['vitest', 'pg', /^promo-engine(\/|$)/],
})
