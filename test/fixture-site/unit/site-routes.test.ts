import t from 'tap'
import { buildFixtureSite, parseSiteYaml, type SiteDefinition } from '../../../fixture-site/index.js'

const DAY = 86_400_000

function site (yaml: string, seed?: string): ReturnType<typeof buildFixtureSite> {
  const s = buildFixtureSite(parseSiteYaml(yaml, 'site.yaml'), { seed })
  t.teardown(() => s.close())
  return s
}

t.test('a daily-changing route moves its body, content-hash ETag and Last-Modified once per site day', async t => {
  const s = site('routes:\n  - path: /news\n    changes: { every: 1d }\n')
  const a = await s.app.inject('/news')
  s.clock.advance('6h')
  const b = await s.app.inject({ url: '/news', headers: { 'if-none-match': a.headers.etag as string } })
  t.equal(b.statusCode, 304, 'no change within the day')
  s.clock.advance('1d')
  const c = await s.app.inject({ url: '/news', headers: { 'if-none-match': a.headers.etag as string } })
  t.equal(c.statusCode, 200)
  t.not(c.body, a.body)
  const lm = Date.parse(c.headers['last-modified'] as string)
  t.ok(lm > Date.parse(a.headers['last-modified'] as string) && lm <= s.clock.now(), 'Last-Modified is when the new version began')
})

t.test('cosmetic changes move a strong ETag but not a weak one', async t => {
  const s = site('routes:\n  - path: /s\n    changes: { every: 1h, kind: cosmetic }\n  - path: /w\n    etag: weak\n    changes: { every: 1h, kind: cosmetic }\n')
  const s1 = await s.app.inject('/s')
  const w1 = await s.app.inject('/w')
  s.clock.advance('2h')
  const s2 = await s.app.inject('/s')
  const w2 = await s.app.inject('/w')
  t.not(s2.headers.etag, s1.headers.etag)
  t.equal(w2.headers.etag, w1.headers.etag)
  t.not(w2.body, w1.body)
  t.equal(w2.body.replace(/<!--.*?-->|\s+/g, ''), w1.body.replace(/<!--.*?-->|\s+/g, ''), 'only whitespace and a comment differ')
})

t.test('a version ETag moves on a rewrite that leaves the bytes alone; a hash ETag does not', async t => {
  const s = site('routes:\n  - path: /v\n    etag: version\n    changes: { every: 1d, kind: rewrite }\n  - path: /h\n    changes: { every: 1d, kind: rewrite }\n')
  const v1 = await s.app.inject('/v')
  const h1 = await s.app.inject('/h')
  s.clock.advance('1d')
  const v2 = await s.app.inject('/v')
  const h2 = await s.app.inject('/h')
  t.equal(v2.body, v1.body)
  t.not(v2.headers.etag, v1.headers.etag)
  t.equal(h2.headers.etag, h1.headers.etag)
  t.not(h2.headers['last-modified'], h1.headers['last-modified'], 'the write still moves Last-Modified')
})

t.test('listed change times take effect exactly at those site times', async t => {
  const s = site('routes:\n  - path: /x\n    changes: { at: ["2026-01-03T12:00:00Z"] }\n')
  const a = await s.app.inject('/x')
  s.clock.set('2026-01-03T11:59:59Z')
  t.equal((await s.app.inject('/x')).headers.etag, a.headers.etag)
  s.clock.set('2026-01-03T12:00:00Z')
  const b = await s.app.inject('/x')
  t.not(b.headers.etag, a.headers.etag)
  t.equal(b.headers['last-modified'], 'Sat, 03 Jan 2026 12:00:00 GMT')
})

t.test('a seeded Poisson process gives the same change times for the same seed and others for another', async t => {
  const yaml = 'routes:\n  - path: /p\n    changes: { poisson: { rate: 2, per: 1d } }\n'
  const history = async (seed: string): Promise<string[]> => {
    const s = site(yaml, seed)
    const seen: string[] = []
    for (let day = 0; day < 20; day++) {
      seen.push(String((await s.app.inject('/p')).headers['last-modified']))
      s.clock.advance('1d')
    }
    return seen
  }
  const a = await history('one')
  t.same(await history('one'), a)
  t.notSame(await history('two'), a)
  const changes = new Set(a).size
  t.ok(changes >= 10 && changes <= 21, `about two changes a day are seen as ${changes} distinct versions over 20 days`)
})

t.test('Last-Modified strategies: none, same-as-date, daily and future', async t => {
  const s = site([
    'routes:',
    '  - { path: /none, lastModified: none }',
    '  - { path: /same, lastModified: same-as-date }',
    '  - { path: /daily, lastModified: daily }',
    '  - { path: /future, lastModified: { future: 2h } }'
  ].join('\n'))
  s.clock.advance('30h')
  t.equal((await s.app.inject('/none')).headers['last-modified'], undefined)
  const same = await s.app.inject('/same')
  t.equal(same.headers['last-modified'], same.headers.date)
  t.equal((await s.app.inject('/daily')).headers['last-modified'], 'Thu, 01 Jan 2026 12:00:00 GMT', 'the daily rewrite falls half a day off the clock start')
  const future = await s.app.inject('/future')
  t.equal(Date.parse(future.headers['last-modified'] as string) - Date.parse(future.headers.date as string), 2 * 3_600_000)
})

t.test('a churn ETag is new on every response', async t => {
  const s = site('routes:\n  - { path: /c, etag: churn }\n')
  const a = await s.app.inject('/c')
  const b = await s.app.inject('/c')
  t.not(a.headers.etag, b.headers.etag)
  t.equal(a.body, b.body)
})

t.test('a sequence answers 429 twice with Retry-After, then the page, and starts over after a reset', async t => {
  const s = site('routes:\n  - path: /busy\n    sequence:\n      - { status: 429, times: 2, retryAfter: 1 }\n      - { status: 200 }\n')
  const statuses = []
  for (let i = 0; i < 4; i++) statuses.push((await s.app.inject('/busy')).statusCode)
  t.same(statuses, [429, 429, 200, 200])
  t.equal((await (s.reset(), s.app.inject('/busy'))).headers['retry-after'], '1')
})

t.test('a sequence step can give Retry-After as an HTTP-date after Date', async t => {
  const s = site('routes:\n  - path: /later\n    sequence: [{ status: 503, retryAfter: "date:+120" }]\n')
  const r = await s.app.inject('/later')
  t.equal(r.statusCode, 503)
  t.equal(Date.parse(r.headers['retry-after'] as string) - Date.parse(r.headers.date as string), 120_000)
})

t.test('render cost is paid for a 304 as for a 200, and recorded in the journal', async t => {
  const s = site('routes:\n  - { path: /slow, renderMs: 60 }\n')
  const a = await s.app.inject('/slow')
  const b = await s.app.inject({ url: '/slow', headers: { 'if-none-match': a.headers.etag as string } })
  t.equal(b.statusCode, 304)
  const entries = await s.journal.waitFor(2, { completed: true })
  for (const e of entries) {
    t.equal(e.renderMs, 60)
    t.ok(e.completedMs !== null && e.completedMs - e.arrivedMs >= 55)
  }
})

t.test('an origin\'s skew shifts its Date and nothing else', async t => {
  const s = site('origins:\n  - name: main\n    routes: [{ path: /a }]\n  - name: late\n    skew: -90s\n    routes: [{ path: /a }]\n')
  const main = await s.app.inject('/a')
  const late = await (s.apps.get('late')?.inject('/a'))
  t.equal(Date.parse(main.headers.date as string) - Date.parse(late?.headers.date as string), 90_000)
  t.equal(late?.headers['last-modified'], main.headers['last-modified'])
})

t.test('a redirect to another origin uses that origin\'s URL', async t => {
  const s = site('origins:\n  - name: main\n    routes: [{ path: /go, redirect: { to: /landing, origin: cdn, status: 301 } }]\n  - name: cdn\n    routes: [{ path: /landing }]\n')
  const r = await s.app.inject('/go')
  t.equal(r.statusCode, 301)
  t.equal(r.headers.location, `${s.originUrl('cdn')}/landing`)
})

t.test('offered encodings follow Accept-Encoding, with Vary and a per-coding ETag', async t => {
  const s = site('routes:\n  - { path: /z, encodings: [br, gzip], body: { size: 20KB } }\n')
  const plain = await s.app.inject('/z')
  const gz = await s.app.inject({ url: '/z', headers: { 'accept-encoding': 'gzip' } })
  t.equal(plain.headers['content-encoding'], undefined)
  t.equal(gz.headers['content-encoding'], 'gzip')
  t.equal(gz.headers.vary, 'Accept-Encoding')
  t.not(gz.headers.etag, plain.headers.etag)
  t.ok(gz.rawPayload.length < plain.rawPayload.length)
  t.equal((await s.app.inject({ url: '/z', headers: { 'accept-encoding': 'gzip', 'if-none-match': gz.headers.etag as string } })).statusCode, 304)
})

t.test('body types and sizes: html, json and bytes of the declared size, and links in HTML', async t => {
  const s = site('routes:\n  - { path: /h, body: { size: 20KB }, links: [/j] }\n  - { path: /j, body: { type: json, size: 1000 } }\n  - { path: /b, body: { type: bytes, size: 5000 } }\n')
  const h = await s.app.inject('/h')
  t.equal(h.rawPayload.length, 20_000)
  t.match(h.body, /<a href="\/j">/)
  const j = await s.app.inject('/j')
  t.equal(j.headers['content-type'], 'application/json')
  t.ok(typeof (JSON.parse(j.body) as { text: string }).text === 'string')
  t.equal((await s.app.inject('/b')).rawPayload.length, 5000)
})

t.test('the same seed gives the same bytes and ETags', async t => {
  const def: SiteDefinition = { routes: [{ path: '/a', body: { size: 3000 } }] }
  const a = buildFixtureSite(def, { seed: 's' })
  const b = buildFixtureSite(def, { seed: 's' })
  const c = buildFixtureSite(def, { seed: 't' })
  t.teardown(async () => { await Promise.all([a.close(), b.close(), c.close()]) })
  const [ra, rb, rc] = await Promise.all([a.app.inject('/a'), b.app.inject('/a'), c.app.inject('/a')])
  t.equal(ra.body, rb.body)
  t.equal(ra.headers.etag, rb.headers.etag)
  t.not(rc.headers.etag, ra.headers.etag)
  void DAY
})

t.test('an origin\'s index at / lists its routes, and a route declared at / replaces it', async t => {
  const s = site('routes:\n  - { path: /a, description: the first page }\n  - { path: /b }\n')
  const index = await s.app.inject('/')
  t.match(index.body, /href="\/a"><code>\/a<\/code><\/a>: the first page/)
  t.notMatch(index.body, /validators/, 'no catalogue unless asked')
  const own = site('routes:\n  - { path: /, title: Home }\n')
  t.match((await own.app.inject('/')).body, /<h1>Home<\/h1>/)
})

t.test('an ETag strategy of none sends no ETag; lastModified true keeps an honest Last-Modified and false drops it', async t => {
  const s = site('routes:\n  - { path: /n, etag: none, lastModified: false }\n  - { path: /y, lastModified: true }\n  - { path: /h, lastModified: honest }\n')
  const n = await s.app.inject('/n')
  t.equal(n.headers.etag, undefined)
  t.equal(n.headers['last-modified'], undefined)
  t.equal((await s.app.inject({ url: '/n', headers: { 'if-modified-since': 'Thu, 01 Jan 2099 00:00:00 GMT' } })).statusCode, 200, 'nothing to validate against: always the full page')
  const y = await s.app.inject('/y')
  t.equal(y.headers['last-modified'], 'Mon, 22 Dec 2025 00:00:00 GMT', 'ten days before the clock start, on a whole second')
  t.equal((await s.app.inject('/h')).headers['last-modified'], y.headers['last-modified'])
})

t.test('a redirect to a route of the same origin sends that path as Location, with its status and Retry-After', async t => {
  const s = site('routes:\n  - { path: /old, redirect: { to: /new, status: 308, retryAfter: 4 } }\n  - { path: /new }\n')
  const r = await s.app.inject('/old')
  t.equal(r.statusCode, 308)
  t.equal(r.headers.location, '/new')
  t.equal(r.headers['retry-after'], '4')
  t.equal((await s.app.inject(r.headers.location as string)).statusCode, 200)
})

t.test('html, text and json bodies are exactly their declared size in bytes, even with a title outside ASCII', async t => {
  const s = site('routes:\n  - { path: /h, title: "Café ☕", body: { size: 3000 } }\n  - { path: /t, title: "Grüße", body: { type: text, size: 2KiB } }\n  - { path: /j, title: "naïve", body: { type: json, size: 1000 } }\n')
  for (const [path, size] of [['/h', 3000], ['/t', 2048], ['/j', 1000]] as const) {
    const r = await s.app.inject(path)
    t.equal(r.rawPayload.length, size, path)
    t.equal(r.headers['content-length'], String(size), path)
  }
  t.match(JSON.parse((await s.app.inject('/j')).body), { title: 'naïve', revision: 0 })
})

t.test('a bytes body past 4 MiB is streamed at its declared length, the same bytes for the same seed', async t => {
  const yaml = 'routes:\n  - { path: /big, body: { type: bytes, size: 5MiB } }\n'
  const [a, b, c] = [site(yaml, 'one'), site(yaml, 'one'), site(yaml, 'two')]
  const head = await a.app.inject({ method: 'HEAD', url: '/big' })
  t.equal(head.headers['content-length'], String(5 * 1024 * 1024))
  const [ra, rb, rc] = await Promise.all([a.app.inject('/big'), b.app.inject('/big'), c.app.inject('/big')])
  t.equal(ra.rawPayload.length, 5 * 1024 * 1024)
  t.ok(ra.rawPayload.equals(rb.rawPayload), 'same seed, same bytes')
  t.equal(ra.headers.etag, rb.headers.etag)
  t.notOk(ra.rawPayload.equals(rc.rawPayload), 'another seed, other bytes')
  t.not(ra.headers.etag, rc.headers.etag)
})

t.test('a site whose clock says realTime follows the real clock from its start; without it, site time stands still', async t => {
  const live = site('clock: { start: 2027-05-01T00:00:00Z, realTime: true }\nroutes: [{ path: /a }]\n')
  const still = site('clock: { start: 2027-05-01T00:00:00Z }\nroutes: [{ path: /a }]\n')
  const epoch = async (s: ReturnType<typeof site>): Promise<number> => (JSON.parse((await s.app.inject('/_webkrab/clock')).body) as { epochMs: number }).epochMs
  const [l0, s0] = [await epoch(live), await epoch(still)]
  await new Promise(resolve => setTimeout(resolve, 40))
  const [l1, s1] = [await epoch(live), await epoch(still)]
  t.ok(l0 >= Date.parse('2027-05-01T00:00:00Z') && l1 - l0 >= 35, `real-time site time moved ${l1 - l0} ms`)
  t.equal(s0, Date.parse('2027-05-01T00:00:00Z'))
  t.equal(s1, s0, 'the still clock did not move')
  t.equal((await still.app.inject('/a')).headers.date, 'Sat, 01 May 2027 00:00:00 GMT')
})

t.test('a response sequence step can carry its own headers, and a 2xx step serves the page with its validators', async t => {
  const s = site('routes:\n  - path: /s\n    sequence:\n      - { status: 503, retryAfter: 2, headers: { x-step: one } }\n      - { status: 200, headers: { x-step: two } }\n')
  const a = await s.app.inject('/s')
  t.equal(a.statusCode, 503)
  t.equal(a.headers['x-step'], 'one')
  const b = await s.app.inject('/s')
  t.equal(b.statusCode, 200)
  t.equal(b.headers['x-step'], 'two')
  t.equal(b.headers['retry-after'], undefined)
  t.equal((await s.app.inject({ url: '/s', headers: { 'if-none-match': b.headers.etag as string } })).statusCode, 304, 'the last step repeats, and honours If-None-Match')
})

t.test('an auth route answers 401 with the challenge it declares', async t => {
  const s = site('routes:\n  - { path: /members, status: 401, headers: { www-authenticate: Basic realm="members" } }\n')
  const r = await s.app.inject('/members')
  t.equal(r.statusCode, 401)
  t.equal(r.headers['www-authenticate'], 'Basic realm="members"')
  t.equal((await s.app.inject({ url: '/members', headers: { 'if-none-match': r.headers.etag as string } })).statusCode, 401, 'preconditions apply only to a 2xx (RFC 9110 13.2.1)')
})
