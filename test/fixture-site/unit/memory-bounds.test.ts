import t from 'tap'
import { spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { Journal, loadSiteFile, parseSiteYaml, SiteClock, SiteState, startFixtureSite, type JournalEntry } from '../../../fixture-site/index.js'

const dir = mkdtempSync(join(tmpdir(), 'webkrab-bounds-'))

function entry (headerBytes: number): Omit<JournalEntry, 'seq'> {
  return {
    origin: 'main', originUrl: 'http://main.localhost', method: 'GET', path: '/x', query: '', url: '/x',
    headers: {}, rawHeaders: ['x-big', 'a'.repeat(headerBytes)], arrivedMs: 0, completedMs: null, arrivedAt: '', completedAt: null,
    status: null, responseHeaders: {}, headerBytes: 0, bodyBytes: 0, cut: false, connectionId: 1, renderMs: 0
  }
}

t.test('the journal is bounded by bytes as well as entries: big requests push the oldest out, counted as dropped', async t => {
  const journal = new Journal({ size: 10_000, maxBytes: 1024 * 1024 })
  for (let i = 0; i < 100; i++) journal.record(entry(16 * 1024))
  t.ok(journal.bytes <= journal.maxBytes, `${journal.bytes} bytes kept of at most ${journal.maxBytes}`)
  t.ok(journal.length < 100 && journal.length > 10, `${journal.length} entries kept`)
  t.equal(journal.dropped, 100 - journal.length)
  t.same(journal.entries().map(e => e.seq), Array.from({ length: journal.length }, (_, i) => 101 - journal.length + i), 'the newest are kept, in order')
  const huge = journal.record(entry(4 * 1024 * 1024))
  t.same(journal.entries(), [huge], 'one entry bigger than the bound alone is still kept: a reader waits for it')
  const completed = journal.record(entry(10))
  completed.headerBytes = 2 * 1024 * 1024
  journal.complete(completed)
  t.same(journal.entries(), [completed], 'a response head counts once it is known')
  journal.clear()
  t.equal(journal.bytes, 0)
  t.throws(() => new Journal({ maxBytes: 10 }), { code: 'WEBKRAB_ERR_BAD_FLAG' })
})

t.test('per-client counters are bounded by bytes: past the bound the least recently counted key is forgotten', async t => {
  const clock = new SiteClock()
  const state = new SiteState({ seed: 's', clock, journal: new Journal(), originNames: ['main'], clientStateBytes: 64 * 1024 })
  t.equal(state.count('flaky main keep'), 1)
  for (let i = 0; i < 2000; i++) {
    state.count(`flaky main ${'k'.repeat(200)}${i}`)
    if (i % 10 === 0) state.count('flaky main keep')
  }
  t.ok(state.clientStateBytes <= 64 * 1024, `${state.clientStateBytes} bytes of counters`)
  t.equal(state.peek('flaky main keep'), 201, 'a key in use stays')
  t.equal(state.peek(`flaky main ${'k'.repeat(200)}0`), 0, 'the oldest unused key is gone')
  t.equal(state.count(`flaky main ${'k'.repeat(200)}0`), 1, 'and counts from one again')
})

t.test('a site file is refused before parsing when it is over 1 MiB, a directory, or not a regular file; routes are at most 10,000', async t => {
  const big = join(dir, 'big.site.yaml')
  writeFileSync(big, `routes:\n${'  - path: /x\n'.repeat(100_000)}`)
  const started = Date.now()
  await t.rejects(loadSiteFile(big), { code: 'WEBKRAB_ERR_BAD_SITE', message: /big\.site\.yaml is 1300008 bytes; a site file is at most 1048576 bytes/ })
  t.ok(Date.now() - started < 1000, 'refused without parsing')
  const folder = join(dir, 'sites')
  mkdirSync(folder)
  await t.rejects(loadSiteFile(folder), { code: 'WEBKRAB_ERR_BAD_SITE', message: /sites is a directory, not a site file/ })
  await t.rejects(loadSiteFile('/dev/null/x'), { code: 'WEBKRAB_ERR_FILE_NOT_FOUND' })
  const fifo = join(dir, 'pipe.site.yaml')
  if (spawnSync('mkfifo', [fifo]).status === 0) await t.rejects(loadSiteFile(fifo), { code: 'WEBKRAB_ERR_BAD_SITE', message: /pipe\.site\.yaml is not a regular file/ }, 'a FIFO is refused without waiting for a writer')
  const many = `routes:\n${Array.from({ length: 10_001 }, (_, i) => `  - path: /p${i}\n`).join('')}`
  t.throws(() => parseSiteYaml(many, 'many.yaml'), { code: 'WEBKRAB_ERR_BAD_SITE', message: /many\.yaml:2:3: the site declares 10001 routes; at most 10000 are served/ })
})

t.test('GET /_webkrab/journal is streamed, entry by entry, never built as one string', async t => {
  const site = await startFixtureSite({ routes: [{ path: '/x' }] })
  t.teardown(() => site.close())
  for (let i = 0; i < 5; i++) await (await request(`${site.url}/x`, { headers: { 'x-pad': 'p'.repeat(4000) } })).body.dump()
  const r = await request(`${site.url}/_webkrab/journal`)
  t.equal(r.headers['transfer-encoding'], 'chunked', 'sent as it is written')
  t.equal(r.headers['content-length'], undefined)
  const body = await r.body.json() as { entries: JournalEntry[], nextSeq: number }
  t.equal(body.entries.length, 5)
  t.equal(body.entries[4].headers['x-pad'], 'p'.repeat(4000))
})

t.test('content changes are kept for at most 100,000 paths: one more new path is refused, a path changed before still changes', async t => {
  const state = new SiteState({ seed: 's', clock: new SiteClock(), journal: new Journal(), originNames: ['main'] })
  for (let i = 0; i < 100_000; i++) state.change('main', `/bytes/${i}`, 'semantic')
  t.throws(() => state.change('main', '/bytes/100000', 'semantic'), { code: 'WEBKRAB_ERR_BAD_PARAM', parameter: 'path' })
  t.equal(state.change('main', '/bytes/7', 'semantic').semantic, 2)
})

t.test('rendered bodies are kept by bytes, not only by count: 16 MiB pages in many revisions stay under 256 MiB', async t => {
  const state = new SiteState({ seed: 's', clock: new SiteClock(), journal: new Journal(), originNames: ['main'] })
  const page = Buffer.alloc(16 * 1024 * 1024)
  for (let i = 0; i < 40; i++) state.memo(`page ${i}`, () => ({ body: page, strong: 'x' }))
  t.ok(state.memoBytes <= 256 * 1024 * 1024, `${state.memoBytes} bytes kept`)
  let made = 0
  state.memo('page 39', () => { made++; return { body: page } })
  t.equal(made, 0, 'the newest is still kept')
  state.memo('page 0', () => { made++; return { body: page } })
  t.equal(made, 1, 'the oldest was let go')
})
