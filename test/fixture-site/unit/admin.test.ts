import t from 'tap'
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { request } from 'undici'
import { fromRoot } from '../../../common/paths.js'
import { buildFixtureSite, startFixtureSite } from '../../../fixture-site/index.js'

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
  const site = buildFixtureSite(null, { token: 's3cret-s3cret-s3cret' })
  t.teardown(() => site.close())
  const denied = await site.app.inject('/_webkrab/journal')
  t.equal(denied.statusCode, 403)
  t.equal(JSON.parse(denied.body).error, 'WEBKRAB_ERR_FORBIDDEN')
  t.equal((await site.app.inject({ url: '/_webkrab/journal', headers: { 'x-webkrab-token': 's3cret-s3cret-s3cret' } })).statusCode, 200)
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

t.test('webkrab serve prints one origin line per origin, main first, honours its flags, and stops on SIGTERM', async t => {
  const start = Date.parse('2030-06-01T00:00:00Z')
  const child = spawn(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'serve', '--seed', '9', '--clock-start', '2030-06-01T00:00:00Z', '--real-time', '--journal-size', '2'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout.setEncoding('utf8')
  while (!/origin offsite .*\n/.test(out)) {
    const [chunk] = await once(child.stdout, 'data') as [string]
    out += chunk
  }
  const lines = out.trim().split('\n')
  t.match(lines[0], /^origin main http:\/\/127\.0\.0\.1:\d+$/)
  t.match(lines[1], /^origin offsite http:\/\/127\.0\.0\.1:\d+$/)
  const main = lines[0].split(' ')[2]
  const r = await request(`${main}/validators/strong`)
  t.equal(r.statusCode, 200)
  await r.body.dump()
  // --clock-start and --real-time: site time began at the start and follows the real clock
  const date = Date.parse(r.headers.date as string)
  t.ok(date >= start && date < start + 60_000, `Date ${String(r.headers.date)}`)
  const clock = async (): Promise<number> => ((await (await request(`${main}/_webkrab/clock`)).body.json()) as { epochMs: number }).epochMs
  const c0 = await clock()
  await new Promise(resolve => setTimeout(resolve, 50))
  t.ok(await clock() - c0 >= 45, 'site time moves on its own')
  // --seed: the same bytes a site built in code with that seed serves
  const bytes = Buffer.from(await (await request(`${main}/bytes/256`)).body.arrayBuffer())
  const same = buildFixtureSite(null, { seed: '9' })
  t.teardown(() => same.close())
  t.ok(bytes.equals((await same.app.inject('/bytes/256')).rawPayload), 'the seed decides the bytes')
  // --journal-size 2: three requests so far, the ring keeps two and counts one dropped
  await (await request(`${main}/validators/weak`)).body.dump()
  const journal = await (await request(`${main}/_webkrab/journal`)).body.json() as { entries: unknown[], dropped: number }
  t.equal(journal.entries.length, 2)
  t.equal(journal.dropped, 1)
  child.kill('SIGTERM')
  const [code] = await once(child, 'exit') as [number]
  t.equal(code, 0)
})

t.test('with a port, the main origin takes it and the others the ports after it', async t => {
  // two free ports in a row: ask the system for one, check the next is free too
  let port = 0
  for (let i = 0; i < 20 && port === 0; i++) {
    const probe = await startFixtureSite({ routes: [{ path: '/a' }] })
    const p = Number(new URL(probe.url).port)
    await probe.close()
    if (p < 65535) {
      try {
        const pair = await startFixtureSite({ origins: [{ name: 'main' }, { name: 'cdn' }] }, { port: p })
        t.teardown(() => pair.close())
        t.same(pair.origins.map(o => o.url), [`http://127.0.0.1:${p}`, `http://127.0.0.1:${p + 1}`])
        port = p
      } catch (err) {
        if ((err as { code?: string }).code !== 'WEBKRAB_ERR_BAD_FLAG') throw err
      }
    }
  }
  t.not(port, 0, 'found two free ports in a row')
  await t.rejects(startFixtureSite(null, { port }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /cannot listen on 127\.0\.0\.1:/ }, 'a port in use is bad input, not a crash')
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
