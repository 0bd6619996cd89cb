// Runs API Extractor once per package entry (docs/design.md#public-surface): `--local` (npm run api)
// rewrites the reports in etc/, without it (npm run check:api) any difference from the committed
// report, any forgotten export or other warning fails. Expects a fresh `npm run build`.
const path = require('node:path')
const { Extractor, ExtractorConfig } = require('@microsoft/api-extractor')

const ENTRIES = ['', 'testing', 'http', 'postgres', 'storage']
const localBuild = process.argv.includes('--local')
let failed = 0
for (const entry of ENTRIES) {
  const file = path.join(__dirname, '..', entry ? `api-extractor.${entry}.json` : 'api-extractor.json')
  const result = Extractor.invoke(ExtractorConfig.loadFileAndPrepare(file), { localBuild, showVerboseMessages: false })
  const name = entry ? `promo-engine/${entry}` : 'promo-engine'
  if (result.succeeded) console.log(`${name}: API report ${result.apiReportChanged ? 'updated' : 'unchanged'}`)
  else {
    failed++
    console.error(`${name}: ${result.errorCount} errors, ${result.warningCount} warnings`)
  }
}
process.exitCode = failed > 0 ? 1 : 0
