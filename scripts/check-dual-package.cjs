// Loads the built ESM and CommonJS entry points into one process (the dual-package hazard) and checks
// that an EngineError of either build is recognised by both: `isEngineError` and `instanceof` rest on a
// `Symbol.for` brand, not on class identity (docs/design.md#public-surface). Run by `npm run check:pkg`.
const assert = require('node:assert/strict')
const cjs = require('../dist/index.cjs')

import('../dist/index.js').then((esm) => {
  assert.notEqual(esm.EngineError, cjs.EngineError, 'the two builds should hold two classes')
  const fromEsm = esm.EngineError.invalid('order.amount', 'must be an integer')
  const fromCjs = new cjs.EngineError({ code: 404, key: 'not_found', message: 'Resource not found' })
  for (const build of [esm, cjs]) {
    for (const error of [fromEsm, fromCjs]) {
      assert.equal(build.isEngineError(error), true)
      assert.equal(error instanceof build.EngineError, true)
    }
    assert.equal(build.isEngineError(new Error('plain')), false)
    assert.equal(new Error('plain') instanceof build.EngineError, false)
  }
  console.log('dual package: EngineError recognised across the ESM and CommonJS builds')
})
