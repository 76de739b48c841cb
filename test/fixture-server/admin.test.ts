import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { request } from 'undici'
import { fromRoot } from '../../common/paths.js'
import { buildFixtureSite, startFixtureSite } from '../../fixture-server/index.js'

const post = (body: unknown): { method: 'POST', headers: Record<string, string>, payload: string } =>
  ({ method: 'POST', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) })

t.test('the clock reads and moves over /_webkrab/clock, and Date follows it', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  t.same(JSON.parse((await site.app.inject('/_webkrab/clock')).body), { now: '2026-01-01T00:00:00.000Z', epochMs: Date.parse('2026-01-01T00:00:00Z') })
  t.equal(JSON.parse((await site.app.inject({ url: '/_webkrab/clock', ...post({ advance: '1d' }) })).body).now, '2026-01-02T00:00:00.000Z')
  t.equal((await site.app.inject('/validators/strong')).headers.date, 'Fri, 02 Jan 2026 00:00:00 GMT')
  t.equal(JSON.parse((await site.app.inject({ url: '/_webkrab/clock', ...post({ set: '2026-03-01T12:00:00Z' }) })).body).epochMs, Date.parse('2026-03-01T12:00:00Z'))
  const bad = await site.app.inject({ url: '/_webkrab/clock', ...post({ advance: 'soon' }) })
  t.equal(bad.statusCode, 400)
  t.match(JSON.parse(bad.body), { parameter: 'advance' })
})

t.test('POST /_webkrab/change alters a path semantically or cosmetically', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  const a = await site.app.inject('/validators/weak')
  t.equal((await site.app.inject({ url: '/_webkrab/change', ...post({ path: '/validators/weak', kind: 'cosmetic' }) })).statusCode, 200)
  const b = await site.app.inject('/validators/weak')
  t.equal(b.headers.etag, a.headers.etag)
  t.not(b.body, a.body)
  await site.app.inject({ url: '/_webkrab/change', ...post({ path: '/validators/weak' }) })
  t.not((await site.app.inject('/validators/weak')).headers.etag, a.headers.etag)
  t.equal((await site.app.inject({ url: '/_webkrab/change', ...post({ path: '/x', kind: 'huge' }) })).statusCode, 400)
  t.equal((await site.app.inject({ url: '/_webkrab/change', ...post({ path: '/x', origin: 'nowhere' }) })).statusCode, 400)
})

t.test('POST /_webkrab/reset empties the journal and per-client state', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  t.equal((await site.app.inject('/flaky?fail=1')).statusCode, 503)
  t.equal((await site.app.inject('/flaky?fail=1')).statusCode, 200)
  await site.app.inject({ url: '/_webkrab/reset', method: 'POST' })
  t.equal(site.journal.entries().length, 0)
  t.equal((await site.app.inject('/flaky?fail=1')).statusCode, 503)
})

t.test('with a token, admin paths need it and crawled paths do not', async t => {
  const site = buildFixtureSite(null, { token: 's3cret' })
  t.teardown(() => site.close())
  const denied = await site.app.inject('/_webkrab/journal')
  t.equal(denied.statusCode, 403)
  t.equal(JSON.parse(denied.body).error, 'WEBKRAB_ERR_FORBIDDEN')
  t.equal((await site.app.inject({ url: '/_webkrab/journal', headers: { 'x-webkrab-token': 's3cret' } })).statusCode, 200)
  t.equal((await site.app.inject('/validators/strong')).statusCode, 200)
})

t.test('the built-in site runs main and offsite on their own ports, and /redirect/offsite leads from one to the other', async t => {
  const site = await startFixtureSite()
  t.teardown(() => site.close())
  t.same(site.origins.map(o => o.name), ['main', 'offsite'])
  t.not(site.origins[0].url, site.origins[1].url)
  const r = await request(`${site.url}/redirect/offsite`)
  await r.body.dump()
  const location = r.headers.location as string
  t.equal(location, `${site.origins[1].url}/validators/strong`)
  await (await request(location)).body.dump()
  const [entry] = await site.journal.waitFor(1, { completed: true, filter: e => e.origin === 'offsite' })
  t.equal(entry.originUrl, site.origins[1].url)
})

t.test('webkrab serve prints one origin line per origin, main first, and stops on SIGTERM', async t => {
  const child = spawn(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'serve', '--seed', '9'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8')
  while (!/origin offsite .*\n/.test(out)) {
    const [chunk] = await once(child.stdout, 'data') as [string]
    out += chunk
  }
  const lines = out.trim().split('\n')
  t.match(lines[0], /^origin main http:\/\/127\.0\.0\.1:\d+$/)
  t.match(lines[1], /^origin offsite http:\/\/127\.0\.0\.1:\d+$/)
  const r = await request(`${lines[0].split(' ')[2]}/validators/strong`)
  t.equal(r.statusCode, 200)
  await r.body.dump()
  child.kill('SIGTERM')
  const [code] = await once(child, 'exit') as [number]
  t.equal(code, 0)
})

t.test('webkrab serve beyond loopback warns and requires a generated token', async t => {
  const child = spawn(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'serve', '--host', '0.0.0.0'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (c: string) => { err += c })
  while (!/token \S+\n/.test(out)) {
    const [chunk] = await once(child.stdout, 'data') as [string]
    out += chunk
  }
  // the warning goes to stderr before listening; its pipe may be read after stdout's
  while (!/warning/.test(err)) await once(child.stderr, 'data')
  const token = /token (\S+)/.exec(out)?.[1] as string
  const port = /origin main http:\/\/0\.0\.0\.0:(\d+)/.exec(out)?.[1] as string
  t.match(err, /warning: .*0\.0\.0\.0/)
  const denied = await request(`http://127.0.0.1:${port}/_webkrab/journal`)
  t.equal(denied.statusCode, 403)
  await denied.body.dump()
  const allowed = await request(`http://127.0.0.1:${port}/_webkrab/journal`, { headers: { 'x-webkrab-token': token } })
  t.equal(allowed.statusCode, 200)
  await allowed.body.dump()
  child.kill('SIGTERM')
  await once(child, 'exit')
})
