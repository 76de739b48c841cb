import t from 'tap'
import { buildFixtureSite, Journal, parseSiteYaml, PoissonSchedule } from '../../../fixture-site/index.js'

const post = (url: string, body: unknown): { url: string, method: 'POST', headers: Record<string, string>, payload: string } =>
  ({ url, method: 'POST', headers: { 'content-type': 'application/json' }, payload: JSON.stringify(body) })

function siteError (text: string): string {
  try {
    parseSiteYaml(text, 'site.yaml')
  } catch (err) {
    return (err as Error).message
  }
  throw new Error('expected the site file to be rejected')
}

t.test('a clock move past what an HTTP-date can write is a 400 naming the parameter, and the clock stays where it was', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  const before = (await site.app.inject('/_webkrab/clock')).body
  for (const [body, parameter] of [
    [{ set: 9e15 }, 'set'],
    [{ set: -9e15 }, 'set'],
    [{ set: '+010000-01-01T00:00:00Z' }, 'set'],
    [{ advance: '3000000d' }, 'advance'],
    [{ advance: 1e300 }, 'advance']
  ] as const) {
    const r = await site.app.inject(post('/_webkrab/clock', body))
    t.equal(r.statusCode, 400, JSON.stringify(body))
    const answer = JSON.parse(r.body)
    t.equal(answer.error, 'WEBKRAB_ERR_BAD_PARAM')
    t.equal(answer.parameter, parameter)
    t.match(answer.message, /0000-01-01.*9999-12-31|is not an ISO 8601 date/, 'the message says the range, or that a year of five digits is no ISO 8601 date')
    t.notMatch(answer.message, /command-line/, 'an admin call is not told about command-line options')
  }
  t.equal((await site.app.inject('/_webkrab/clock')).body, before, 'the clock did not move')
  const page = await site.app.inject('/validators/strong')
  t.equal(page.statusCode, 200, 'pages still answer')
  t.equal(page.headers.date, 'Thu, 01 Jan 2026 00:00:00 GMT')
  t.equal(site.activity().http.clockMoves, 0, 'no refused move is counted as made')
  t.throws(() => site.clock.set(9e15), { code: 'WEBKRAB_ERR_BAD_FLAG' }, 'in process too')
  t.throws(() => site.clock.advance('3000000d'), { code: 'WEBKRAB_ERR_BAD_FLAG' })
  t.equal(site.clock.now(), Date.parse('2026-01-01T00:00:00Z'))
  t.throws(() => buildFixtureSite(null, { clockStart: 9e15 }), { code: 'WEBKRAB_ERR_BAD_FLAG' }, 'and at start')
})

t.test('every duration, size and count a catalogue path takes is bounded: past the bound is a 400 naming the parameter', async t => {
  const site = buildFixtureSite()
  t.teardown(() => site.close())
  const cases: Array<[string, string]> = [
    ['/slow/headers?ms=600001', 'ms'],
    ['/slow/body?bytes=1024&bps=0', 'bps'],
    ['/slow/body?bytes=20GB', 'bytes'],
    ['/bytes/2TB', 'N'],
    ['/gzip-bomb?bytes=2TB', 'bytes'],
    ['/gzip-bomb?ratio=0', 'ratio'],
    ['/changing?every=36526d', 'every'],
    ['/changing?every=99999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999999d', 'every'],
    ['/flaky?fail=1000001', 'fail'],
    ['/status/429?retry-after=2147483649', 'retry-after'],
    ['/status/503?retry-after=date:%2B2147483649', 'retry-after'],
    ['/flaky?retry-after=99999999999999999999', 'retry-after'],
    ['/redirect/to?url=/&retry-after=2147483649', 'retry-after'],
    ['/redirect/1001', 'N'],
    ['/cache/max-age?s=315360001', 's'],
    ['/stall?after=1MiB', 'after'],
    ['/hostile/huge-header?bytes=65MiB', 'bytes'],
    ['/hostile/many-headers?count=1000001', 'count'],
    ['/hostile/never-ends?ms=60001', 'ms'],
    ['/hostile/bomb/gzip?bytes=2TB', 'bytes'],
    ['/_webkrab/journal?since=99999999999999999999', 'since']
  ]
  for (const [url, parameter] of cases) {
    const r = await site.app.inject(url)
    t.equal(r.statusCode, 400, url)
    t.match(JSON.parse(r.body), { error: 'WEBKRAB_ERR_BAD_PARAM', parameter }, url)
  }
  t.equal((await site.app.inject('/status/429?retry-after=2147483648')).headers['retry-after'], '2147483648', '2^31 itself is allowed (RFC 9111 1.2.2)')
})

t.test('every duration in a site file is bounded, with file:line:col: timers by what a sleep can take, periods by a century', async t => {
  const route = (extra: string): string => `routes:\n  - path: /x\n    ${extra}\n`
  t.match(siteError(route('renderMs: 30d')), /^Site file breaks the site schema: site\.yaml:3:15: routes\[0\]\.renderMs is "30d", longer than 10m/)
  t.match(siteError(route('changes: { every: 36526d }')), /site\.yaml:3:23: routes\[0\]\.changes\.every .* longer than 36525d/)
  t.match(siteError(route('changes: { poisson: { rate: 1, per: 36526d } }')), /routes\[0\]\.changes\.poisson\.per .* longer than 36525d/)
  t.match(siteError(route('changes: { poisson: { rate: 100000, per: 1d } }')), /site\.yaml:3:33: 100000 changes per 1d is more than one a minute/)
  t.match(siteError(route('lastModified: { future: 40000d }')), /routes\[0\]\.lastModified\.future .* longer than 36525d/)
  t.match(siteError('origins:\n  - name: main\n    skew: -40000d\n'), /site\.yaml:3:11: origins\[0\]\.skew is "-40000d", longer than 36525d/)
  t.match(siteError(route('sequence: [{ status: 429, retryAfter: 1000000000000 }]')), /site\.yaml:3:43: Retry-After of 1000000000000 seconds is more than 2147483648/)
  t.match(siteError(route('sequence: [{ status: 429, retryAfter: "date:+1000000000000" }]')), /date:\+1000000000000 is more than 2147483648 seconds after Date/)
  t.match(siteError(route('redirect: { to: /y, retryAfter: 1000000000000 }')), /Retry-After of 1000000000000 seconds/)
  t.match(siteError('clock: { start: 9e15 }\n'), /site\.yaml:1:17: clock\.start is outside 0000-01-01\.\.9999-12-31/)
  t.match(siteError('clock: { start: "2026-02-30" }\n'), /clock\.start is not an ISO 8601 date/, 'the 30th of February is no date (Date.parse would make it 2 March)')
  t.match(siteError('clock: { start: "2026-01-01T12:00:00" }\n'), /clock\.start is not an ISO 8601 date/, 'a date-time without a zone names no one instant')
  t.match(siteError('clock: { start: "next tuesday" }\n'), /clock\.start is not an ISO 8601 date/)
  t.match(siteError('clock: { start: 0 }\n'), /clock\.start is before 1970-01-11: the site's pages are last modified ten days before its start/)
  t.match(siteError('clock: { start: "9999-12-31T00:00:00Z" }\norigins:\n  - name: main\n    skew: 2d\n'), /site\.yaml:4:11: origin "main"'s clock, the site's start moved by its skew, would be .*outside 1970-01-11\.\.9999-12-31/)
  t.match(siteError('clock: { start: "1970-01-20T00:00:00Z" }\norigins:\n  - name: main\n    skew: -30d\n'), /would be 1969-12-21, outside 1970-01-11/)
  t.doesNotThrow(() => parseSiteYaml(route('renderMs: 10m') + '    changes: { every: 36525d }\n', 'site.yaml'), 'the bounds themselves are allowed')
})

t.test('a Poisson schedule makes at most its cap of changes, however far the clock goes, and agrees with its list of events', async t => {
  const day = 86_400_000
  const capped = new PoissonSchedule('s', 'k', 1 / 60_000, 0, 1000)
  const far = capped.versionAt(250_000_000_000_000)
  t.equal(far.index, 1000)
  const schedule = new PoissonSchedule('s', 'k', 3 / day, 0)
  const events = schedule.eventsUntil(100 * day)
  t.same(schedule.versionAt(100 * day), { index: events.length, since: events[events.length - 1] })
  t.same(schedule.versionAt(10 * day), { index: events.filter(e => e <= 10 * day).length, since: events.filter(e => e <= 10 * day).pop() ?? null }, 'going back in time starts over')
})

t.test('journal.waitFor refuses a timeout past Node\'s largest timer instead of giving up at once', async t => {
  const journal = new Journal()
  await t.rejects(journal.waitFor(1, { timeoutMs: 30 * 86_400_000 }), { code: 'WEBKRAB_ERR_BAD_FLAG', message: /timeoutMs must be 0\.\.2147483647/ })
  await t.rejects(journal.waitFor(1, { timeoutMs: Number.NaN }), { code: 'WEBKRAB_ERR_BAD_FLAG' })
  await t.rejects(journal.waitFor(1, { timeoutMs: 5 }), { code: 'WEBKRAB_ERR_JOURNAL_TIMEOUT' }, 'a timeout in range still times out')
})
