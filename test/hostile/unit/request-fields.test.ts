import t from 'tap'
import Database from 'better-sqlite3'
import { createServer, type IncomingMessage } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { crawl } from '../../../crawler/index.js'
import { Fetcher } from '../../../crawler/fetch/fetch.js'
import { DEFAULT_BUDGETS } from '../../../crawler/policy/budgets.js'
import { badInputKit, type BadInputCase } from '../bad-input-kit.js'
import { runWebkrab } from '../webkrab-process.js'

// Request fields are checked before the first request: a --header or --user-agent that
// is not a field value exits 2 with one line naming the flag, and nothing is sent. A name
// such as `constructor` or `__proto__` is a field name like any other. And a request
// undici refuses to send (a stored validator holding a control character) settles:
// the fetch path never strands undici's connection pool.

const kit = await badInputKit(t)
const { url, good } = kit
const crawlWith = (...flags: string[]): string[] => ['crawl', url, '--store', good, ...flags]

const CASES: BadInputCase[] = [
  { what: 'a control character in a --header value', args: crawlWith('--header', 'X-Note: a\u0001b'), line: /WEBKRAB_ERR_BAD_FLAG: .*--header X-Note: it holds the control character U\+0001/ },
  { what: 'DEL in a --header value', args: crawlWith('--header', 'X-Note: a\u007fb'), line: /WEBKRAB_ERR_BAD_FLAG: .*--header X-Note: it holds the control character U\+007F/ },
  { what: 'a C1 control in a --header value', args: crawlWith('--header', 'X-Note: a\u0085b'), line: /WEBKRAB_ERR_BAD_FLAG: .*--header X-Note: it holds the control character U\+0085/ },
  { what: 'a carriage return in a --header value', args: crawlWith('--header', 'X-Note: a\rX-Injected: 1'), line: /WEBKRAB_ERR_BAD_FLAG: .*--header X-Note: it holds U\+000D \(CR\)/ },
  { what: 'a line feed in --user-agent', args: crawlWith('--user-agent', 'ua/1\nX-Injected: 1'), line: /WEBKRAB_ERR_BAD_FLAG: .*--user-agent "ua\/1\\nX-Injected: 1": it holds U\+000A \(LF\)/ },
  { what: 'a control character in --user-agent', args: crawlWith('--user-agent', 'ua/1\u0007'), line: /WEBKRAB_ERR_BAD_FLAG: .*--user-agent .*control character U\+0007/ },
  { what: 'an empty --user-agent', args: crawlWith('--user-agent', '  '), line: /WEBKRAB_ERR_BAD_FLAG: .*--user-agent is empty/ },
  { what: 'a non-ASCII --header value', args: crawlWith('--header', 'X-Note: café'), line: /WEBKRAB_ERR_BAD_FLAG: .*--header X-Note: it holds "é" \(U\+00E9\): WebKrab sends field values as visible US-ASCII/ },
  { what: 'a --header name that is not a token', args: crawlWith('--header', 'X Note: a'), line: /WEBKRAB_ERR_BAD_FLAG: .*"x note" is not a token/ },
  { what: 'Expect as request context', args: crawlWith('--header', 'Expect: 100-continue'), line: /WEBKRAB_ERR_BAD_FLAG: .*--header Expect cannot be set: a GET has no content/ },
  { what: 'a --header given twice', args: crawlWith('--header', 'X-Note: a', '--header', 'x-note: b'), line: /WEBKRAB_ERR_BAD_FLAG: .*--header x-note is given twice/ }
]

t.test('a --header or --user-agent that is not a field value exits 2 with one line naming the flag, before any request', async t => {
  await kit.checkCases(t, CASES)
})

t.test('nothing already stored was touched by a refused field', async t => {
  kit.checkUntouched(t)
})

t.test('--header names such as constructor and __proto__ are field names like any other: sent as given', async t => {
  // a plain server: what arrives on the socket, every field line as sent
  const seen: IncomingMessage['rawHeaders'][] = []
  const server = createServer((req, res) => {
    seen.push(req.rawHeaders)
    res.setHeader('cache-control', 'max-age=60')
    res.end('ok')
  })
  await new Promise<void>(resolve => { server.listen(0, '127.0.0.1', resolve) })
  t.teardown(() => { server.close() })
  const port = (server.address() as AddressInfo).port
  const store = join(t.testdir(), 'names.sqlite')
  const run = await runWebkrab(['crawl', `http://127.0.0.1:${port}/`, '--store', store, '--quiet', '--json',
    '--header', 'constructor: y', '--header', '__proto__: z', '--header', 'toString: w', '--user-agent', 'probe/1', '--robots', 'ignore'])
  t.equal(run.code, 0, `the crawl runs (${run.stderr.trim()})`)
  t.equal(seen.length, 1)
  const fields = new Map<string, string>()
  for (let i = 0; i + 1 < seen[0].length; i += 2) fields.set(seen[0][i].toLowerCase(), seen[0][i + 1])
  t.equal(fields.get('constructor'), 'y')
  t.equal(fields.get('__proto__'), 'z')
  t.equal(fields.get('tostring'), 'w')
  t.equal(fields.get('user-agent'), 'probe/1', 'the User-Agent the operator chose')
  const report = JSON.parse(run.stdout) as { resources: Array<{ requestContext: Record<string, string> }> }
  t.ok(Object.hasOwn(report.resources[0].requestContext, '__proto__'), 'the report\'s request context names __proto__ as a field')
})

t.test('crawl() settles for a request undici refuses: a stored ETag holding a control character fails the resource with the reason, and nothing is sent', async t => {
  const store = join(t.testdir(), 'etag.sqlite')
  const target = `${kit.site.url}/validators/strong`
  await crawl({ urls: [target], store, robots: 'ignore' })
  const db = new Database(store)
  db.prepare('UPDATE resources SET etag = ?').run('"a\u0001b"')
  db.close()
  const since = kit.site.journal.nextSeq
  // undici's refusal used to strand each connection it was given: the third attempt waited for ever
  let timer: NodeJS.Timeout | undefined
  const settled = await Promise.race([
    crawl({ urls: [target], store, revalidateAlways: true, maxAttempts: 5, robots: 'ignore' }),
    new Promise<null>(resolve => { timer = setTimeout(() => { resolve(null) }, 20_000) })
  ])
  clearTimeout(timer)
  if (settled === null) {
    t.fail('crawl() did not settle within 20 s')
    return
  }
  const [r] = settled.resources
  t.equal(r.outcome, 'failed')
  t.match(r.reason, /WEBKRAB_ERR_BAD_REQUEST|The request cannot be sent/, 'the reason says the request could not be sent')
  t.match(r.reason, /if-none-match: it holds the control character U\+0001/, 'and which field, and why')
  t.equal(r.attempts, 1, 'a request that cannot be sent is not tried again')
  t.same(kit.site.journal.since(since).map(e => e.path), [], 'nothing reached the server')
})

t.test('the fetch path settles every request undici refuses, and the next request still goes out', async t => {
  const fetcher = new Fetcher({ perOriginConcurrency: 2, connectTimeoutMs: 5_000, responseTimeoutMs: 10_000 })
  t.teardown(async () => { await fetcher.destroy() })
  const hooks = { limits: DEFAULT_BUDGETS, runBytes: () => 0, onWireBytes: () => {} }
  const target = `${kit.site.url}/validators/strong`
  // more refusals than the origin has connections: each used to spend one for good
  const refused: Array<Record<string, string>> = [{ 'x-a': 'a\u0001b' }, { 'x-a': 'a\rb' }, { expect: '100-continue' }, { 'x-a': 'é' }, { 'x a': 'b' }]
  for (const headers of refused) {
    const result = await fetcher.fetch(target, headers, hooks)
    t.equal(result.error?.code, 'WEBKRAB_ERR_BAD_REQUEST', `${JSON.stringify(headers)}: refused before dispatch`)
    t.equal(result.status, null)
  }
  const since = kit.site.journal.nextSeq
  const ok = await fetcher.fetch(target, { accept: '*/*' }, hooks)
  t.equal(ok.status, 200, 'a good request after them is answered')
  t.equal(kit.site.journal.since(since).length, 1, 'and only it reached the server')
})

t.test('should undici refuse a request the fetch path let through, the refusal is the request\'s alone: the requests after it go out', async t => {
  const fetcher = new Fetcher({ perOriginConcurrency: 2, connectTimeoutMs: 5_000, responseTimeoutMs: 10_000 })
  t.teardown(async () => { await fetcher.destroy() })
  const hooks = { limits: DEFAULT_BUDGETS, runBytes: () => 0, onWireBytes: () => {} }
  const target = `${kit.site.url}/validators/strong`
  // a Connection field undici checks itself (its options must be tokens): refused at dispatch
  for (let i = 0; i < 3; i++) {
    const result = await fetcher.fetch(target, { connection: 'not a token' }, hooks)
    t.equal(result.error?.code, 'WEBKRAB_ERR_BAD_REQUEST', `refusal ${i + 1}: a request that cannot be sent, not a connection failure to retry`)
    t.match(result.error?.message, /nothing was sent/)
  }
  const ok = await fetcher.fetch(target, { accept: '*/*' }, hooks)
  t.equal(ok.status, 200, 'a good request after them is answered')
})
