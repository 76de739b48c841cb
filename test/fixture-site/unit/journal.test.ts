import t from 'tap'
import { Client } from 'undici'
import { Journal, buildFixtureSite, startFixtureSite, type JournalEntry } from '../../../fixture-site/index.js'

function fakeEntry (path: string): Omit<JournalEntry, 'seq'> {
  return { origin: 'main', originUrl: '', method: 'GET', path, query: '', url: path, headers: {}, rawHeaders: [], arrivedMs: 0, completedMs: null, arrivedAt: '', completedAt: null, status: null, responseHeaders: {}, headerBytes: 0, bodyBytes: 0, cut: false, connectionId: 1, renderMs: 0 }
}

t.test('the journal is a ring: past its size the oldest entries go and are counted as dropped', async t => {
  const j = new Journal({ size: 3 })
  for (let i = 1; i <= 5; i++) j.record(fakeEntry(`/${i}`))
  t.same(j.entries().map(e => e.path), ['/3', '/4', '/5'])
  t.equal(j.dropped, 2)
  t.equal(j.nextSeq, 6)
  t.same(j.since(4).map(e => e.seq), [4, 5])
  t.same(j.since(1).map(e => e.seq), [3, 4, 5], 'since a dropped seq gives what is left')
  j.clear()
  t.equal(j.entries().length, 0)
  t.equal(j.record(fakeEntry('/6')).seq, 6, 'sequence numbers keep counting after a clear')
})

t.test('waitFor resolves on events and rejects with WEBKRAB_ERR_JOURNAL_TIMEOUT when too few come', async t => {
  const j = new Journal()
  const waiting = j.waitFor(2, { filter: e => e.path === '/x' })
  j.record(fakeEntry('/x'))
  j.record(fakeEntry('/y'))
  j.record(fakeEntry('/x'))
  t.same((await waiting).map(e => e.seq), [1, 3])
  await t.rejects(j.waitFor(5, { timeoutMs: 30 }), { code: 'WEBKRAB_ERR_JOURNAL_TIMEOUT' })
  t.equal(j.listenerCount('entry'), 0, 'a finished wait leaves no listener behind')
})

t.test('an entry records the request as sent and the response as sent', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  await site.app.inject({ url: '/cache/max-age?s=5', headers: { 'accept-language': 'fr', 'x-custom': 'yes' } })
  const [e] = await site.journal.waitFor(1, { completed: true })
  t.match(e, { origin: 'main', method: 'GET', path: '/cache/max-age', query: 's=5', url: '/cache/max-age?s=5', status: 200, cut: false, arrivedAt: '2026-01-01T00:00:00.000Z' })
  t.equal(e.headers['x-custom'], 'yes')
  t.ok(e.rawHeaders.includes('x-custom'))
  t.equal(e.responseHeaders['cache-control'], 'max-age=5')
  t.ok(typeof e.responseHeaders.etag === 'string' && typeof e.responseHeaders.date === 'string')
  t.equal(e.bodyBytes, 2048)
  t.ok(e.headerBytes > 100)
  t.ok(typeof e.completedMs === 'number' && e.completedMs >= e.arrivedMs, 'arrival and completion in monotonic ms')
  t.equal(e.completedAt, '2026-01-01T00:00:00.000Z', 'completion in site time')
  t.type(e.connectionId, 'number')
  t.equal(e.renderMs, 0)
})

t.test('admin paths are not journalled, and the journal reads over HTTP as JSON and NDJSON', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  await site.app.inject('/validators/strong')
  await site.app.inject('/validators/weak')
  await site.app.inject('/_webkrab/clock')
  const all = JSON.parse((await site.app.inject('/_webkrab/journal')).body) as { entries: JournalEntry[], dropped: number, nextSeq: number }
  t.same(all.entries.map(e => e.path), ['/validators/strong', '/validators/weak'])
  t.equal(all.nextSeq, 3)
  const later = JSON.parse((await site.app.inject('/_webkrab/journal?since=2')).body) as { entries: JournalEntry[] }
  t.same(later.entries.map(e => e.path), ['/validators/weak'])
  const nd = await site.app.inject('/_webkrab/journal.ndjson')
  t.equal(nd.headers['content-type'], 'application/x-ndjson')
  t.same(nd.body.trim().split('\n').map(l => (JSON.parse(l) as JournalEntry).seq), [1, 2])
})

t.test('requests on one keep-alive connection share a connection id; another connection gets another', async t => {
  const site = await startFixtureSite()
  t.teardown(() => site.close())
  const one = new Client(site.url)
  await (await one.request({ path: '/validators/strong', method: 'GET' })).body.text()
  await (await one.request({ path: '/validators/weak', method: 'GET' })).body.text()
  const other = new Client(site.url)
  await (await other.request({ path: '/validators/etag-only', method: 'GET' })).body.text()
  await one.close()
  await other.close()
  const entries = await site.journal.waitFor(3, { completed: true })
  t.equal(entries[0].connectionId, entries[1].connectionId)
  t.not(entries[2].connectionId, entries[0].connectionId)
})
