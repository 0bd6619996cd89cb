import { describe, expect, it } from 'vitest'
import { engineContext } from '../../src/engine'
import { createFetchHandler } from '../../src/http'
import { seededRandom } from '../../src/ids'
import { signedFileUrl } from '../../src/operations/admin/stored-files'
import { currentShape } from '../../src/operations/kernel/shape-versions'
import { testEngine } from '../support/engine'

/*
 * Export file urls are signed, expiring links (docs/http.md#asynchronous-actions-and-export-files): a
 * browser or curl downloads them without the keys until they expire; the keys still work on the bare url.
 */

const SECRET = 's'.repeat(40)

async function setup(options: { filesSecret?: string } = {}) {
  const t = testEngine({
    authentication: 'keys',
    filesBaseUrl: 'http://engine.test/v1/files/',
    filesSecret: SECRET,
    fileLinkTtlSeconds: 600,
    ...options,
  })
  const handler = createFetchHandler(t.engine)
  const app = await t.engine.auth.createApplication({ family: 'server' })
  const keys = { 'X-App-Id': app.app_id, 'X-App-Token': app.secret }
  await t.engine.customers.create({ source_id: 'ann', name: 'Ann' })
  const exp = await t.engine.exports.create({ exported_object: 'customer', parameters: { fields: ['source_id'] } })
  await t.engine.asyncActions.runPending()
  const url = (await t.engine.exports.get(exp.id)).result?.url ?? ''
  const get = (u: string, headers: Record<string, string> = {}) => handler(new Request(u, { headers }))
  return { ...t, handler, keys, exp, url, get }
}

const error = async (res: Response) => ({ status: res.status, ...((await res.json()) as object) })

describe('signed file links', () => {
  it('a link downloads the file without keys, streamed as a CSV nobody caches', async () => {
    const { url, get } = await setup()
    expect(url).toMatch(/^http:\/\/engine\.test\/v1\/files\/file_\w+\?expires=1768471800&signature=[\w-]{43}$/)
    const res = await get(url)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(res.headers.get('cache-control')).toBe('private, no-store')
    expect(res.headers.get('content-disposition')).toMatch(/^attachment; filename="customer_exp_\w+\.csv"/)
    expect(await res.text()).toBe('source_id\r\nann\r\n')
  })

  it('each read of the export signs a fresh link', async () => {
    const { engine, clock, exp, url } = await setup()
    clock.advance(60_000)
    const later = (await engine.exports.get(exp.id)).result?.url
    expect(later).toMatch(/expires=1768471860&/)
    expect(later).not.toBe(url)
  })

  it('an expired link is 410, a changed one 403, a broken one 401: EngineErrors with a request id', async () => {
    const { clock, url, get } = await setup()
    const [base, query] = url.split('?') as [string, string]
    const params = new URLSearchParams(query)
    const signature = params.get('signature') ?? ''
    const expires = params.get('expires') ?? ''
    const flipped = `${signature[0] === 'A' ? 'B' : 'A'}${signature.slice(1)}`
    for (const [link, status, key] of [
      [`${base}?expires=${expires}&signature=${flipped}`, 403, 'file_link_forbidden'],
      [`${base}?expires=${Number(expires) + 3600}&signature=${signature}`, 403, 'file_link_forbidden'],
      [`${base.replace(/file_\w+$/, 'file_other')}?${query}`, 403, 'file_link_forbidden'],
      [`${base}?expires=${expires}`, 401, 'invalid_file_link'],
      [`${base}?signature=${signature}`, 401, 'invalid_file_link'],
      [`${base}?expires=soon&signature=${signature}`, 401, 'invalid_file_link'],
      [`${base}?expires=${expires}&signature=short`, 401, 'invalid_file_link'],
      [base, 401, 'missing_header'],
    ] as const) {
      expect(await error(await get(link)), link).toMatchObject({
        status,
        code: status,
        key,
        request_id: expect.stringMatching(/^req_/),
      })
    }
    clock.advance(600_000)
    expect(await error(await get(url))).toMatchObject({ status: 410, key: 'file_link_expired' })
  })

  it('the keys still download the bare url; a link signed with another secret is refused', async () => {
    const { url, get, keys } = await setup()
    const bare = url.split('?')[0] ?? ''
    expect(await (await get(bare, keys)).text()).toBe('source_id\r\nann\r\n')
    const other = await setup({ filesSecret: 'o'.repeat(40) })
    const foreign = `${other.url.split('?')[0]}?${url.split('?')[1]}`
    expect(await error(await other.get(foreign))).toMatchObject({ status: 403, key: 'file_link_forbidden' })
  })

  it('a valid link to a file still being written is a 404', async () => {
    const { engine, store, get } = await setup()
    const writes = Array.from({ length: 600 }, (_, i) => ({
      op: 'put' as const,
      collection: 'customers' as const,
      value: { id: `cust_${i}`, source_id: `s${i}`, created_at: '2026-01-01T00:00:00.000Z' } as never,
      expectedVersion: null,
      shape: currentShape('customers'),
    }))
    expect((await store.commit({ writes })).ok).toBe(true)
    await engine.exports.create({ exported_object: 'customer' })
    const [action] = (await store.async_actions.list({ where: { status: 'ENQUEUED' } })).data
    // One step of the two: the file exists, WRITING.
    let commits = 0
    const mortal = new Proxy(store, {
      get(target, prop, receiver) {
        if (prop !== 'commit') return Reflect.get(target, prop, receiver)
        return async (c: Parameters<typeof store.commit>[0]) => {
          // The step's claim commits, then its chunk: the worker dies at the second step's claim.
          if (commits++ > 1) throw new Error('the worker died')
          return store.commit(c)
        }
      },
    })
    const worker = testEngine({
      store: mortal,
      random: seededRandom(7),
      filesBaseUrl: 'http://engine.test/v1/files/',
    }).engine
    await expect(worker.asyncActions.runPending()).rejects.toThrow('the worker died')
    const file = (await store.files.list()).data.find((f) => f.value.status === 'WRITING')?.value
    expect(file).toBeDefined()
    expect((await store.async_actions.get(action?.value.id ?? ''))?.value.status).toBe('IN_PROGRESS')
    const link = signedFileUrl(engineContext(engine), file?.url ?? '')
    expect(await error(await get(link))).toMatchObject({ status: 404, key: 'not_found' })
  })
})
