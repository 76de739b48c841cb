import t, { type Test } from 'tap'
import { spawn, spawnSync } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { request } from 'undici'
import { fromRoot } from '../../common/paths.js'
import { startFixtureSite } from '../../fixture-site/index.js'

const BIN = fromRoot('dist/bin/webkrab.js')

/** Starts `webkrab serve ARGS` and resolves with its origin lines (and stderr so far) once every origin is printed. */
async function serve (t: Test, args: string[], origins = 2): Promise<{ lines: string[], err: () => string }> {
  const child = spawn(process.execPath, [BIN, 'serve', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await once(child, 'exit')
    }
  })
  let out = ''
  let err = ''
  child.stdout.setEncoding('utf8')
  child.stderr.setEncoding('utf8')
  child.stderr.on('data', (c: string) => { err += c })
  while (out.split('\n').filter(l => l.startsWith('origin ')).length < origins) {
    const [chunk] = await once(child.stdout, 'data') as [string]
    out += chunk
  }
  return { lines: out.trim().split('\n'), err: () => err }
}

t.test('webkrab serve refuses an empty host, a weak token, a folder for --site and a public URL that is not an origin: one line, exit 2, nothing listens', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-serve-'))
  const cases: Array<[string[], RegExp]> = [
    [['--host', ''], /^webkrab: WEBKRAB_ERR_BAD_FLAG: .*--host is empty/],
    [['--host', '  '], /--host is empty/],
    [['--host', '0.0.0.0', '--token', ''], /--token is empty: an admin token is at least 16 characters/],
    [['--host', '0.0.0.0', '--token', 'x'], /--token is 1 characters; an admin token is at least 16/],
    [['--token', 'fifteen-chars-x'], /--token is 15 characters/],
    [['--token', 'sixteen chars ok'], /--token has a space/],
    [['--site', dir], /^webkrab: WEBKRAB_ERR_BAD_SITE: .*is a directory, not a site file/],
    [['--public-url', 'ftp://fixture:21'], /--public-url "ftp:\/\/fixture:21" is not an http\(s\) URL/],
    [['--public-url', 'http://fixture:8080/base'], /must be an origin only/],
    [['--public-url', 'http://fixture:8080', '--advertise-host', 'fixture'], /give --public-url or --advertise-host, not both/],
    [['--advertise-host', ''], /--advertise-host is empty/],
    [['--journal-bytes', '10'], /--journal-bytes must be 1KiB\.\.16GiB/]
  ]
  for (const [args, message] of cases) {
    const r = spawnSync(process.execPath, [BIN, 'serve', ...args], { encoding: 'utf8', timeout: 20_000 })
    t.equal(r.status, 2, args.join(' '))
    t.equal(r.stdout, '', `${args.join(' ')}: no origin line`)
    t.equal(r.stderr.trim().split('\n').length, 1, `${args.join(' ')}: one line`)
    t.match(r.stderr, message, args.join(' '))
  }
})

t.test('a token given to startFixtureSite is enforced on loopback too, so a crawler on the same host cannot reset the journal', async t => {
  const token = 'harness-0123456789abcdef'
  const site = await startFixtureSite(null, { token })
  t.teardown(() => site.close())
  t.equal(site.token, token)
  const reset = await request(`${site.url}/_webkrab/reset`, { method: 'POST' })
  t.equal(reset.statusCode, 403)
  await reset.body.dump()
  const empty = await request(`${site.url}/_webkrab/reset`, { method: 'POST', headers: { 'x-webkrab-token': '' } })
  t.equal(empty.statusCode, 403, 'an empty header never passes')
  await empty.body.dump()
  t.same(site.activity().http, { resets: 0, clockMoves: 0, changes: 0 })
  const ok = await request(`${site.url}/_webkrab/reset`, { method: 'POST', headers: { 'x-webkrab-token': token } })
  t.equal(ok.statusCode, 200)
  await ok.body.dump()
  t.equal(site.activity().http.resets, 1, 'a reset through HTTP is counted apart from the in-process ones')
  await t.rejects(startFixtureSite(null, { host: '' }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /host is empty/ })
})

t.test('with --advertise-host, a site bound beyond loopback prints, journals and redirects with URLs a client can reach', async t => {
  const { lines, err } = await serve(t, ['--host', '0.0.0.0', '--advertise-host', 'localhost'])
  const [main, offsite] = lines.filter(l => l.startsWith('origin ')).map(l => l.split(' ')[2])
  t.match(main, /^http:\/\/localhost:\d+$/)
  t.match(offsite, /^http:\/\/localhost:\d+$/)
  const token = /^token (\S+)$/m.exec(lines.join('\n'))?.[1] as string
  t.ok(token.length >= 16, 'a generated token')
  const hop = await request(`${main}/redirect/offsite`)
  await hop.body.dump()
  t.equal(hop.headers.location, `${offsite}/validators/strong`, 'a cross-origin redirect leads to the advertised URL')
  const origins = await (await request(`${main}/_webkrab/origins`, { headers: { 'x-webkrab-token': token } })).body.json() as { origins: Array<{ url: string }> }
  t.same(origins.origins.map(o => o.url), [main, offsite])
  const journal = await (await request(`${main}/_webkrab/journal`, { headers: { 'x-webkrab-token': token } })).body.json() as { entries: Array<{ originUrl: string }> }
  t.equal(journal.entries[0].originUrl, main)
  t.match(err(), /origin main listens on http:\/\/0\.0\.0\.0:\d+, reached as http:\/\/localhost:\d+/)
})

t.test('with --public-url, the main origin is printed and linked as that URL, and the others keep their ports on its host', async t => {
  const { lines, err } = await serve(t, ['--public-url', 'http://fixture.test:8080'])
  const [main, offsite] = lines.filter(l => l.startsWith('origin ')).map(l => l.split(' ')[2])
  t.equal(main, 'http://fixture.test:8080')
  t.match(offsite, /^http:\/\/fixture\.test:\d+$/)
  while (!/origin offsite listens/.test(err())) await new Promise(resolve => setTimeout(resolve, 20))
  const listen = /origin main listens on (\S+),/.exec(err())?.[1] as string
  const hop = await request(`${listen}/redirect/offsite`)
  await hop.body.dump()
  t.equal(hop.headers.location, `${offsite}/validators/strong`)
  const index = await (await request(`${listen}/`)).body.text()
  t.match(index, 'at <code>http://fixture.test:8080</code>', 'the index says where clients reach it')
  const missing = await (await request(`${listen}/nothing`)).body.json() as { index: string }
  t.equal(missing.index, 'http://fixture.test:8080/', 'a 404 points to the public index')
})
