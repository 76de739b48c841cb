import t from 'tap'
import { buildFixtureSite, CATALOGUE } from '../../../fixture-site/index.js'

const json = (body: string): any => JSON.parse(body)

t.test('GET /_webkrab/catalogue lists every path as JSON: path, parameters and a one-line behaviour, the admin paths apart', async t => {
  const site = buildFixtureSite({ origins: [{ name: 'main', catalogue: true, routes: [{ path: '/article', description: 'the article' }] }] })
  t.teardown(() => site.close())
  const r = await site.app.inject('/_webkrab/catalogue')
  t.equal(r.statusCode, 200)
  t.match(r.headers['content-type'], /^application\/json/)
  const c = json(r.body)
  t.equal(c.origin, 'main')
  t.equal(c.paths.length, CATALOGUE.length + 1, 'every catalogue path and the site route')
  for (const p of c.paths) {
    t.ok(p.path.startsWith('/') && p.href.startsWith('/'), p.path)
    t.ok(typeof p.behaviour === 'string' && p.behaviour.length > 5 && !p.behaviour.includes('\n'), `${p.path}: one line of behaviour`)
  }
  t.same(c.paths.find((p: any) => p.path === '/article'), { path: '/article', href: '/article', methods: ['GET', 'HEAD'], parameters: [], behaviour: 'the article' })
  t.same(c.paths.find((p: any) => p.path === '/slow/body?bytes=N&bps=R').parameters, [{ name: 'bytes', in: 'query', value: 'N' }, { name: 'bps', in: 'query', value: 'R' }])
  t.same(c.paths.find((p: any) => p.path === '/bytes/N').parameters, [{ name: 'N', in: 'path', value: 'N' }])
  t.same(c.admin.filter((a: any) => a.method === 'POST').map((a: any) => a.path), ['/_webkrab/clock', '/_webkrab/change', '/_webkrab/robots', '/_webkrab/reset'])
  t.notOk(c.paths.some((p: any) => p.path.startsWith('/_webkrab/')), 'admin paths are listed apart')
})

t.test('a bad value is refused naming the parameter as the catalogue writes it (N for /status/N, not code)', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  const c = json((await site.app.inject('/_webkrab/catalogue')).body)
  for (const [url, written] of [['/status/99', '/status/N'], ['/bytes/lots', '/bytes/N'], ['/redirect/x', '/redirect/N?status=3xx'], ['/hostile/bomb/zip', '/hostile/bomb/gzip|br|deflate|stacked?bytes=N'], ['/hostile/date/soon', '/hostile/date/missing|garbage|year-1900|year-9999'], ['/slow/headers?ms=x', '/slow/headers?ms=N']]) {
    const r = await site.app.inject(url)
    t.equal(r.statusCode, 400, url)
    const names = (written === '/status/N' ? [{ name: 'N' }] : c.paths.find((p: any) => p.path === written).parameters).map((p: any) => p.name)
    t.ok(names.includes(json(r.body).parameter), `${url}: "${String(json(r.body).parameter)}" is a parameter the catalogue names (${names.join(', ')})`)
  }
})

t.test('the journal filters by path, method, status and origin, and /_webkrab/journal/count counts with the same filters', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  await site.app.inject('/validators/strong')
  await site.app.inject({ method: 'HEAD', url: '/validators/strong' })
  await site.app.inject('/status/429')
  await site.app.inject('/status/503')
  await site.apps.get('offsite')?.inject('/validators/strong')
  const count = async (q: string): Promise<number> => json((await site.app.inject(`/_webkrab/journal/count${q}`)).body).count
  const paths = async (q: string): Promise<string[]> => json((await site.app.inject(`/_webkrab/journal${q}`)).body).entries.map((e: any) => `${e.method} ${e.path} ${String(e.status)} ${String(e.origin)}`)
  t.equal(await count(''), 5)
  t.equal(await count('?path=/validators/strong'), 3)
  t.equal(await count('?path=/validators/strong&method=head'), 1, 'method in any case')
  t.equal(await count('?status=429'), 1)
  t.equal(await count('?status=5xx'), 1, 'a status class')
  t.equal(await count('?status=4xx&path=/status/429'), 1)
  t.equal(await count('?origin=offsite'), 1)
  t.equal(await count('?path=/validators/strong&since=3'), 1, 'since with a filter')
  t.same(await paths('?path=/status/503'), ['GET /status/503 503 main'])
  const nd = (await site.app.inject('/_webkrab/journal.ndjson?origin=offsite')).body.trim().split('\n').map(l => json(l).origin)
  t.same(nd, ['offsite'], 'the ndjson form filters alike')
  for (const [q, parameter] of [['?status=abc', 'status'], ['?origin=nowhere', 'origin'], ['?path=validators', 'path'], ['?method=G%20T', 'method'], ['?status=2xx&status=3xx', 'status']]) {
    const r = await site.app.inject(`/_webkrab/journal/count${q}`)
    t.equal(r.statusCode, 400, q)
    t.equal(json(r.body).parameter, parameter, q)
  }
})

t.test('the JSON journal is streamed as one valid document, empty or not', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  t.same(json((await site.app.inject('/_webkrab/journal')).body), { entries: [], dropped: 0, nextSeq: 1 })
  for (let i = 0; i < 3; i++) await site.app.inject('/validators/strong')
  const body = json((await site.app.inject('/_webkrab/journal?since=2')).body)
  t.same(body.entries.map((e: any) => e.seq), [2, 3])
  t.equal(body.nextSeq, 4)
})

t.test('an admin POST body is read as JSON whatever Content-Type a curl user sends, and anything else is a WebKrab 400', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  const advance = async (headers: Record<string, string>, payload: string): Promise<{ status: number, body: any }> => {
    const r = await site.app.inject({ method: 'POST', url: '/_webkrab/clock', headers, payload })
    return { status: r.statusCode, body: json(r.body) }
  }
  t.equal((await advance({ 'content-type': 'application/x-www-form-urlencoded' }, '{"advance":"1d"}')).body.now, '2026-01-02T00:00:00.000Z', 'curl -d sends form-urlencoded')
  t.equal((await advance({ 'content-type': 'text/plain' }, '{"advance":"1d"}')).body.now, '2026-01-03T00:00:00.000Z')
  t.equal((await advance({}, '{"advance":"1d"}')).body.now, '2026-01-04T00:00:00.000Z', 'no Content-Type at all')
  for (const [headers, payload] of [[{ 'content-type': 'application/x-www-form-urlencoded' }, 'advance=1d'], [{ 'content-type': 'application/json' }, '{"advance":'], [{ 'content-type': 'application/json' }, '[1]']] as const) {
    const r = await advance(headers, payload)
    t.equal(r.status, 400, payload)
    t.match(r.body, { error: 'WEBKRAB_ERR_BAD_PARAM', parameter: 'body' }, payload)
  }
  t.equal(site.clock.now(), Date.parse('2026-01-04T00:00:00Z'), 'a refused body moved nothing')
  const huge = await site.app.inject({ method: 'POST', url: '/_webkrab/change', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ path: `/${'x'.repeat(70_000)}` }) })
  t.equal(huge.statusCode, 413)
  t.match(json(huge.body), { error: 'WEBKRAB_ERR_BAD_PARAM', parameter: 'body' })
  const reset = await site.app.inject({ method: 'POST', url: '/_webkrab/reset', headers: { 'content-type': 'application/json' } })
  t.equal(reset.statusCode, 200, 'an empty JSON body is an empty object')
})

t.test('a path nothing serves is a 404 that points to the index and the JSON catalogue', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  for (const url of ['/no/such/path?x=1', '/_webkrab/nothing']) {
    const r = await site.app.inject(url)
    t.equal(r.statusCode, 404)
    const body = json(r.body)
    t.equal(body.error, 'WEBKRAB_ERR_NOT_FOUND')
    t.match(body.message, `serves GET ${url.split('?')[0]}: the index at / lists every path`)
    t.equal(body.index, 'http://main.localhost/')
    t.equal(body.catalogue, 'http://main.localhost/_webkrab/catalogue')
  }
})

t.test('POST /_webkrab/change for a path no route serves is a 400 naming it, and records nothing', async t => {
  const site = buildFixtureSite({ routes: [{ path: '/article' }] })
  t.teardown(() => site.close())
  const r = await site.app.inject({ method: 'POST', url: '/_webkrab/change', payload: { path: '/artcle' } })
  t.equal(r.statusCode, 400)
  t.match(json(r.body), { error: 'WEBKRAB_ERR_BAD_PARAM', parameter: 'path', message: /no route of origin "main" serves \/artcle/ })
  t.same(site.state.revision('main', '/artcle'), { semantic: 0, cosmetic: 0, writes: 0, lastChangedAt: null })
  t.throws(() => site.change('/artcle'), { code: 'WEBKRAB_ERR_BAD_PARAM' }, 'in process too')
  t.equal((await site.app.inject({ method: 'POST', url: '/_webkrab/change', payload: { path: '/article' } })).statusCode, 200)
  const catalogue = buildFixtureSite()
  t.teardown(() => catalogue.close())
  for (const path of ['/validators/strong', '/changing', '/bytes/10', '/hostile/date/garbage', '/status/404']) t.doesNotThrow(() => catalogue.change(path), `${path} is served by the catalogue`)
  t.throws(() => catalogue.change('/hostile/date/tomorrow'), { code: 'WEBKRAB_ERR_BAD_PARAM' })
})

t.test('an admin token guards every admin path: a missing, empty, wrong or prefix token never passes', async t => {
  const token = 'harness-token-0123456789'
  const site = buildFixtureSite(null, { token })
  t.teardown(() => site.close())
  for (const sent of [undefined, '', 'harness-token-012345678', 'harness-token-0123456788', `${token}x`, ' '.repeat(token.length)]) {
    const headers: Record<string, string> = sent === undefined ? {} : { 'x-webkrab-token': sent }
    t.equal((await site.app.inject({ url: '/_webkrab/journal', headers })).statusCode, 403, JSON.stringify(sent))
    t.equal((await site.app.inject({ method: 'POST', url: '/_webkrab/reset', headers })).statusCode, 403, JSON.stringify(sent))
  }
  t.equal((await site.app.inject({ url: '/_webkrab/journal', headers: { 'x-webkrab-token': token } })).statusCode, 200)
  t.equal(site.activity().http.resets, 0, 'no refused reset is counted')
})

t.test('a token given in code is at least 16 characters, on loopback too', async t => {
  for (const token of ['', 'x', 's3cret', '123456789012345', 'sixteen chars ok']) {
    t.throws(() => buildFixtureSite(null, { token }), { code: 'WEBKRAB_ERR_BAD_FLAG' }, JSON.stringify(token))
  }
  t.doesNotThrow(() => { void buildFixtureSite(null, { token: '1234567890123456' }).close() })
})

t.test('resets, clock moves and changes are counted by the way they came: the admin paths or the in-process API', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  site.reset()
  site.clock.advance('1d')
  site.change('/validators/strong')
  await site.app.inject({ method: 'POST', url: '/_webkrab/reset' })
  await site.app.inject({ method: 'POST', url: '/_webkrab/reset' })
  await site.app.inject({ method: 'POST', url: '/_webkrab/clock', payload: { set: '2026-02-01T00:00:00Z' } })
  await site.app.inject({ method: 'POST', url: '/_webkrab/change', payload: { path: '/validators/weak' } })
  site.journal.clear()
  t.same(site.activity(), { http: { resets: 2, clockMoves: 1, changes: 1 }, inProcess: { resets: 2, clockMoves: 1, changes: 1 } })
})

t.test('a path that answers other methods is a 405 with Allow (RFC 9110 15.5.6), not a 404', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  for (const [method, url, allow] of [['POST', '/validators/strong', 'GET, HEAD'], ['DELETE', '/bytes/10', 'GET, HEAD'], ['GET', '/_webkrab/reset', 'POST'], ['PUT', '/_webkrab/clock', 'GET, HEAD, POST']] as const) {
    const r = await site.app.inject({ method, url })
    t.equal(r.statusCode, 405, `${method} ${url}`)
    t.equal(r.headers.allow, allow, `${method} ${url}`)
    t.equal(json(r.body).error, 'WEBKRAB_ERR_METHOD_NOT_ALLOWED')
  }
})
