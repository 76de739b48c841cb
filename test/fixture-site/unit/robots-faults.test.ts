import t from 'tap'
import { Agent, request } from 'undici'
import { startFixtureSite, type JournalEntry } from '../../../fixture-site/index.js'

// one origin per fault, each serving it at /robots.txt; the catalogue's /robots/NAME too
const running = await startFixtureSite({
  origins: [
    { name: 'main', robots: 'timeout', catalogue: true },
    { name: 'stalls', robots: 'stall' },
    { name: 'resets', robots: 'reset' }
  ]
})
const agent = new Agent({ headersTimeout: 400, bodyTimeout: 400 })
t.teardown(async () => {
  await agent.close()
  await running.close()
})
const url = (origin: string, path = '/robots.txt'): string => `${running.site.originUrl(origin)}${path}`

async function fetchRobots (target: string, method: 'GET' | 'HEAD' = 'GET'): Promise<{ status?: number, bytes: number, length?: string, error?: string }> {
  let bytes = 0
  let status: number | undefined
  let length: string | undefined
  try {
    const r = await request(target, { dispatcher: agent, method, reset: true })
    status = r.statusCode
    length = r.headers['content-length'] as string | undefined
    for await (const chunk of r.body) bytes += (chunk as Buffer).length
    return { status, bytes, length }
  } catch (err) {
    return { status, bytes, length, error: (err as { code?: string }).code ?? (err as Error).message }
  }
}

async function completed (origin: string, path = '/robots.txt', method = 'GET'): Promise<JournalEntry> {
  const [e] = await running.site.journal.waitFor(1, { completed: true, filter: x => x.origin === origin && x.path === path && x.method === method })
  return e
}

t.test('robots: timeout reads the request and never answers; the journal records it, unanswered and cut', async t => {
  const r = await fetchRobots(url('main'))
  t.equal(r.error, 'UND_ERR_HEADERS_TIMEOUT')
  const e = await completed('main')
  t.equal(e.status, null)
  t.equal(e.cut, true)
})

t.test('robots: stall sends the head and half the file, then nothing, until the client gives up', async t => {
  const r = await fetchRobots(url('stalls'))
  t.equal(r.status, 200)
  t.equal(r.error, 'UND_ERR_BODY_TIMEOUT')
  const whole = Number(r.length)
  t.equal(r.bytes, Math.floor(whole / 2))
  const e = await completed('stalls')
  t.equal(e.bodyBytes, Math.floor(whole / 2))
  t.equal(e.cut, true)
})

t.test('robots: reset sends the head and half the file, then resets the connection', async t => {
  const r = await fetchRobots(url('resets'))
  t.equal(r.status, 200)
  t.ok(r.error !== undefined, `the client sees an error (${String(r.error)})`)
  const e = await completed('resets')
  t.equal(e.status, 200)
  t.ok(e.bodyBytes > 0 && e.bodyBytes < Number(e.responseHeaders['content-length']), 'less than the whole file')
  t.equal(e.cut, true)
})

t.test('a HEAD of the stall and reset variants gets the head of the file, and /robots/timeout hangs like robots: timeout', async t => {
  const stall = await fetchRobots(url('main', '/robots/stall'), 'HEAD')
  t.equal(stall.status, 200)
  t.ok(Number(stall.length) > 0)
  const reset = await fetchRobots(url('main', '/robots/reset'), 'HEAD')
  t.equal(reset.status, 200)
  t.equal((await fetchRobots(url('main', '/robots/timeout'))).error, 'UND_ERR_HEADERS_TIMEOUT')
  t.equal((await completed('main', '/robots/timeout')).status, null)
})
