#!/usr/bin/env node
// The `promo-engine` command: the built server. A file of its own so that the command exists from
// `npm install` on, before the first build of a checkout (then it says how to build).
import { existsSync } from 'node:fs'

const built = new URL('../dist/cli.js', import.meta.url)
if (!existsSync(built)) {
  process.stderr.write('promo-engine: the server is not built yet; run `npm run build:server` in the repository\n')
  process.exit(1)
}
await import(built.href)
