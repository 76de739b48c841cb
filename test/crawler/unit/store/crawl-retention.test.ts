import t from 'tap'
import Database from 'better-sqlite3'
import { createHash } from 'node:crypto'
import { Store } from '../../../../crawler/store/store.js'
import { openBench, resourceFor } from '../../crawl-helpers.js'

// Retention is separate from caching.

function count (path: string, sql: string): number {
  const db = new Database(path, { readonly: true })
  const n = (db.prepare(sql).get() as { n: number }).n
  db.close()
  return n
}

t.test('--retain none keeps status, validators and digests but no body, and still revalidates', async t => {
  const bench = await openBench(t)
  const first = await bench.crawl(['/validators/strong'], { retain: 'none' })
  t.equal(count(bench.storePath, 'SELECT count(*) AS n FROM bodies'), 0)
  const store = Store.open(bench.storePath)
  const record = store.find(`${bench.url}/validators/strong`, {})
  store.close()
  t.equal(record?.status, 200)
  t.equal(record?.etag, first.journal[0].responseHeaders.etag)
  t.match(record?.digestStrict, /^sha256:[0-9a-f]{64}$/)
  t.equal(record?.responseHeaders['content-type'], undefined, 'only the metadata revalidation needs')
  const second = await bench.crawl(['/validators/strong'], { retain: 'none' })
  t.equal(second.journal[0].headers['if-none-match'], record?.etag)
  t.equal(second.journal[0].status, 304)
  t.equal(resourceFor(second.report, '/validators/strong').outcome, 'unchanged')
})

t.test('--retain headers keeps every response header but no body', async t => {
  const bench = await openBench(t)
  await bench.crawl(['/validators/strong'], { retain: 'headers' })
  t.equal(count(bench.storePath, 'SELECT count(*) AS n FROM bodies'), 0)
  const store = Store.open(bench.storePath)
  const record = store.find(`${bench.url}/validators/strong`, {})
  store.close()
  t.equal(record?.retained, 'headers')
  t.match(record?.responseHeaders['content-type'], /text\/html/)
})

t.test('--retain body stores the decoded body whose digest the record carries', async t => {
  const bench = await openBench(t)
  await bench.crawl(['/gzip-bomb?ratio=4&bytes=300000&encoding=gzip'])
  const store = Store.open(bench.storePath)
  const record = store.find(`${bench.url}/gzip-bomb?ratio=4&bytes=300000&encoding=gzip`, {})
  const body = store.readBody(record?.id ?? -1)
  store.close()
  t.equal(body?.length, 300_000, 'decoded, not as sent')
  t.equal(`sha256:${createHash('sha256').update(body ?? '').digest('hex')}`, record?.digestStrict)
})
