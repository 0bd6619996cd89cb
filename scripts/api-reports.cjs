// Runs API Extractor once per package entry (docs/design.md#public-surface): `--local` (npm run api)
// rewrites the reports in etc/, without it (npm run check:api) any difference from the committed
// report, any forgotten export or other warning fails. Expects a fresh `npm run build`.
const fs = require('node:fs')
const path = require('node:path')
const { Extractor, ExtractorConfig } = require('@microsoft/api-extractor')

const ENTRIES = ['', 'testing', 'http', 'postgres', 'storage']
const localBuild = process.argv.includes('--local')
// An entry's declarations name other entries by the package's name (\`promo-engine/storage\`):
// api-extractor.json maps that name to a copy of the declarations under node_modules, so each report
// treats the other entry as a package it imports, as an installed copy would, not as its own surface.
const root = path.join(__dirname, '..')
const copy = path.join(root, 'node_modules/.cache/api-extractor/promo-engine')
fs.rmSync(copy, { recursive: true, force: true })
fs.mkdirSync(copy, { recursive: true })
for (const f of fs.readdirSync(path.join(root, 'dist'))) {
  if (f.endsWith('.d.ts')) fs.copyFileSync(path.join(root, 'dist', f), path.join(copy, f))
}
// Forgotten exports are written into the report (so review sees them) and fail here.
const forgottenIn = (report) =>
  fs.existsSync(report)
    ? [...fs.readFileSync(report, 'utf8').matchAll(/\(ae-forgotten-export\) The symbol "([^"]+)"/g)].map((m) => m[1])
    : []
let failed = 0
for (const entry of ENTRIES) {
  const file = path.join(root, entry ? `api-extractor.${entry}.json` : 'api-extractor.json')
  const result = Extractor.invoke(ExtractorConfig.loadFileAndPrepare(file), { localBuild, showVerboseMessages: false })
  const name = entry ? `promo-engine/${entry}` : 'promo-engine'
  const forgotten = forgottenIn(result.extractorConfig.reportFilePath)
  if (forgotten.length > 0) {
    failed++
    console.error(`${name}: types referenced but not exported: ${forgotten.join(', ')}`)
  } else if (result.succeeded) console.log(`${name}: API report ${result.apiReportChanged ? 'updated' : 'unchanged'}`)
  else {
    failed++
    console.error(`${name}: ${result.errorCount} errors, ${result.warningCount} warnings`)
  }
}
process.exitCode = failed > 0 ? 1 : 0
