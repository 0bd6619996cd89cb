import { defineConfig } from 'tsup'

export default defineConfig({
  entry: { cli: 'src/cli.ts' },
  format: ['esm'],
  // The library is bundled from this repository's source, at the same commit: the server cannot run
  // against another version of it, and the library gains none of the server's dependencies. Its own
  // dependencies (decimal.js, valibot) are bundled too, from the root's lock, since this package does
  // not declare them (tsup leaves out only what package.json lists): one version of each, pinned once.
  dts: false,
  sourcemap: false,
  clean: true,
  target: 'node20',
  platform: 'node',
})
