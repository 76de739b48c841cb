import t from 'tap'
import { formatHttpDate } from '../../../../common/http/http-date.js'
import { decideRobots, robotsCrawlDelayMs } from '../../../../crawler/policy/robots-decision.js'
import { DEFAULT_ROBOTS_FETCH, judgeRobotsAnswer, robotsConditionalHeaders, robotsReadDue, robotsReadIsDue, robotsUrlOf, type RobotsAnswer, type RobotsRecord, type RobotsStep } from '../../../../crawler/policy/robots-fetch.js'

const ORIGIN = 'http://main.test:8080'
const NOW = Date.parse('2026-01-01T00:00:00Z')
const SECOND = 1000
const HOUR = 3_600_000
const DAY = 86_400_000
const noJitter = (): number => 0
const date = formatHttpDate(NOW)

function answer (status: number, headers: Record<string, string> = {}, body = ''): RobotsAnswer {
  return { kind: 'response', status, headers: { date, ...headers }, body: Buffer.from(body) }
}

function judge (a: RobotsAnswer, previous: RobotsRecord | null = null, chain = [`${ORIGIN}/robots.txt`]): RobotsStep {
  return judgeRobotsAnswer({ origin: ORIGIN, chain, answer: a, serverNowMs: NOW, previous, random: noJitter })
}

function record (step: RobotsStep): RobotsRecord {
  if (step.next !== 'settled') throw new Error(`expected a settled record, got ${step.next} ${step.reason}`)
  return step.record
}

const FILE = 'User-agent: *\nDisallow: /private/\n'

t.test('each answer to robots.txt gives the access and the time to read it again that RFC 9309 and WebKrab\'s rules say', async t => {
  const rows: Array<{ name: string, answer: RobotsAnswer, access: RobotsRecord['access'], againIn: number, reason: RegExp, notReason?: RegExp, header?: string | null }> = [
    { name: '200, no cache control', answer: answer(200, {}, FILE), access: 'rules', againIn: DAY, reason: /most RFC 9309 section 2\.4 allows/, header: null },
    { name: '200, max-age an hour', answer: answer(200, { 'cache-control': 'max-age=3600' }, FILE), access: 'rules', againIn: HOUR, reason: /as Cache-Control: max-age=3600 says/, header: 'Cache-Control: max-age=3600' },
    { name: '200, max-age an hour, 10 minutes of it spent upstream (Age)', answer: answer(200, { 'cache-control': 'max-age=3600', age: '600' }, FILE), access: 'rules', againIn: 50 * 60 * SECOND, reason: /kept for 50m/, header: 'Cache-Control: max-age=3600, Age: 600' },
    { name: '200, max-age a week: cut to 24 hours', answer: answer(200, { 'cache-control': 'max-age=604800' }, FILE), access: 'rules', againIn: DAY, reason: /SHOULD NOT use the cached version for more than 24 hours/ },
    { name: '200, no-cache: WebKrab\'s floor', answer: answer(200, { 'cache-control': 'no-cache' }, FILE), access: 'rules', againIn: 60 * SECOND, reason: /WebKrab's floor/ },
    { name: '200, no-store: WebKrab\'s floor', answer: answer(200, { 'cache-control': 'no-store' }, FILE), access: 'rules', againIn: 60 * SECOND, reason: /WebKrab's floor/ },
    { name: '200, Expires two hours after Date', answer: answer(200, { expires: formatHttpDate(NOW + 2 * HOUR) }, FILE), access: 'rules', againIn: 2 * HOUR, reason: /Expires/ },
    { name: '200, an empty file', answer: answer(200, {}, ''), access: 'rules', againIn: DAY, reason: /0 groups/ },
    { name: '401', answer: answer(401), access: 'allow-all', againIn: DAY, reason: /unavailable \(401\).*MAY access any resources.*2\.3\.1\.3/ },
    { name: '403', answer: answer(403), access: 'allow-all', againIn: DAY, reason: /unavailable \(403\)/ },
    { name: '404', answer: answer(404), access: 'allow-all', againIn: DAY, reason: /unavailable \(404\)/ },
    { name: '410, max-age an hour', answer: answer(410, { 'cache-control': 'max-age=3600' }), access: 'allow-all', againIn: HOUR, reason: /unavailable \(410\)/ },
    { name: '429 without Retry-After: backed off', answer: answer(429), access: 'disallow-all', againIn: 60 * SECOND, reason: /^robots\.txt answered \(429 Too Many Requests\): RFC 9309 counts a 4xx as "unavailable".*WebKrab's rule robots-rate-limit-waited-out \(not the RFC's\).*backoff after 1 unreachable read/, notReason: /MUST assume complete disallow/ },
    { name: '429 with Retry-After: 3600', answer: answer(429, { 'retry-after': '3600' }), access: 'disallow-all', againIn: HOUR, reason: /robots-rate-limit-waited-out.*Retry-After: 3600 says 1h/, notReason: /2\.3\.1\.4/, header: 'Retry-After: 3600' },
    { name: '429 with Retry-After: 3: read again when the server said, not after a silent outage\'s backoff', answer: answer(429, { 'retry-after': '3' }), access: 'disallow-all', againIn: 3 * SECOND, reason: /Retry-After: 3 says 3s/, header: 'Retry-After: 3' },
    { name: '500', answer: answer(500, {}, '<html>error</html>'), access: 'disallow-all', againIn: 60 * SECOND, reason: /unreachable \(500\).*2\.3\.1\.4/ },
    { name: '503 with Retry-After as an HTTP-date an hour after Date', answer: answer(503, { 'retry-after': formatHttpDate(NOW + HOUR) }), access: 'disallow-all', againIn: HOUR, reason: /Retry-After/ },
    { name: '503 with Retry-After: 10, shorter than a silent outage\'s backoff: read again when the server said', answer: answer(503, { 'retry-after': '10' }), access: 'disallow-all', againIn: 10 * SECOND, reason: /Retry-After: 10 says 10s/, header: 'Retry-After: 10' },
    { name: '503 with Retry-After: 0: a second\'s floor, so the crawler does not ask without pause', answer: answer(503, { 'retry-after': '0' }), access: 'disallow-all', againIn: SECOND, reason: /backoff after 1 unreachable read: 1s/ },
    { name: '503 with a Retry-After that is not one', answer: answer(503, { 'retry-after': 'soon' }), access: 'disallow-all', againIn: 60 * SECOND, reason: /backoff/, header: null },
    { name: 'a network error', answer: { kind: 'network-error', error: 'ECONNRESET' }, access: 'disallow-all', againIn: 60 * SECOND, reason: /network error: ECONNRESET/ },
    { name: 'a 1xx', answer: answer(103), access: 'disallow-all', againIn: 60 * SECOND, reason: /not a final answer/ }
  ]
  for (const row of rows) {
    const r = record(judge(row.answer))
    t.equal(r.access, row.access, `${row.name}: ${row.access}`)
    t.equal(r.readAgainAt - NOW, row.againIn, `${row.name}: read again in ${row.againIn} ms`)
    t.match(r.reason, row.reason, `${row.name}: the reason says why`)
    if (row.notReason !== undefined) t.notMatch(r.reason, row.notReason, `${row.name}: the reason quotes no rule that is not this answer's`)
    if (row.header !== undefined) t.equal(r.header, row.header, `${row.name}: header ${String(row.header)}`)
    t.equal(r.origin, ORIGIN)
  }
})

t.test('an unreachable robots.txt is read again with a growing backoff, not on every request', async t => {
  let previous: RobotsRecord | null = null
  const waits: number[] = []
  for (let i = 0; i < 5; i++) {
    previous = record(judge(answer(503), previous))
    waits.push(previous.readAgainAt - NOW)
  }
  t.same(waits, [60 * SECOND, 120 * SECOND, 240 * SECOND, 480 * SECOND, 960 * SECOND])
  t.equal(previous?.failures, 5)
  // reached again: the count starts over
  const ok = record(judge(answer(200, {}, FILE), previous))
  t.equal(ok.failures, 0)
  t.equal(record(judge(answer(503), ok)).failures, 1)
})

t.test('redirects are followed up to five; a sixth makes the file unavailable (RFC 9309 2.3.1.2)', async t => {
  const chain = [`${ORIGIN}/robots.txt`]
  for (let hop = 1; hop <= 5; hop++) {
    const step = judge(answer(302, { location: `/robots.txt?hop=${hop}` }), null, chain)
    t.equal(step.next, 'follow', `redirect ${hop} is followed`)
    if (step.next === 'follow') {
      t.equal(step.url, `${ORIGIN}/robots.txt?hop=${hop}`)
      t.match(step.reason, new RegExp(`redirect ${hop} of at most 5`))
      chain.push(step.url)
    }
  }
  const sixth = record(judge(answer(302, { location: '/robots.txt?hop=6' }), null, chain))
  t.equal(sixth.access, 'allow-all')
  t.match(sixth.reason, /more than 5 consecutive redirects.*MAY assume that the robots\.txt file is unavailable/)
  // the file reached within five applies to the authority first asked
  const reached = record(judge(answer(200, {}, FILE), null, chain))
  t.equal(reached.origin, ORIGIN)
  t.equal(reached.access, 'rules')
  t.match(reached.reason, /after 5 redirects, from http:\/\/main\.test:8080\/robots\.txt/)
})

t.test('a redirect to another authority is followed and its file governs the origin first asked', async t => {
  const step = judge(answer(301, { location: 'http://cdn.test/robots/redirected' }))
  t.equal(step.next, 'follow')
  const r = record(judge(answer(200, {}, FILE), null, [`${ORIGIN}/robots.txt`, 'http://cdn.test/robots/redirected']))
  t.equal(r.origin, ORIGIN)
  t.same(r.chain, [`${ORIGIN}/robots.txt`, 'http://cdn.test/robots/redirected'])
  const d = decideRobots({ record: r, url: `${ORIGIN}/private/x`, productToken: 'webkrab', serverNowMs: NOW })
  t.equal(d.action, 'disallow')
})

t.test('a redirect that cannot be followed or that loops makes the file unavailable', async t => {
  for (const [name, headers] of [['no Location', {}], ['a file: URL', { location: 'file:///etc/passwd' }], ['not a URL', { location: 'http://[bad' }]] as const) {
    const r = record(judge(answer(302, headers)))
    t.equal(r.access, 'allow-all', name)
  }
  const loop = record(judge(answer(302, { location: '/robots.txt' })))
  t.match(loop.reason, /redirect loop/)
})

t.test('a 304 to a conditional read keeps the rules and renews their time; without stored rules it is not taken as a file', async t => {
  const first = record(judge(answer(200, { etag: '"v1"', 'last-modified': 'Mon, 01 Dec 2025 00:00:00 GMT' }, FILE)))
  t.same(robotsConditionalHeaders(first), { 'if-none-match': '"v1"' })
  const later = NOW + DAY
  const again = judgeRobotsAnswer({ origin: ORIGIN, chain: [`${ORIGIN}/robots.txt`], answer: answer(304, { 'cache-control': 'max-age=7200' }), serverNowMs: later, previous: first, random: noJitter })
  const r = record(again)
  t.equal(r.access, 'rules')
  t.equal(r.rules, first.rules)
  t.equal(r.readAgainAt, later + 2 * HOUR)
  t.equal(r.etag, '"v1"')
  t.match(r.reason, /not modified/)
  t.equal(record(judge(answer(304))).access, 'disallow-all')
  t.same(robotsConditionalHeaders({ ...first, etag: null }), { 'if-modified-since': 'Mon, 01 Dec 2025 00:00:00 GMT' })
  t.same(robotsConditionalHeaders(null), {})
})

t.test('a file over the parsing limit is read up to it, and the reason says how much', async t => {
  const big = `User-agent: *\nDisallow: /first/\n${'#'.repeat(600 * 1024)}\nDisallow: /late/\n`
  const r = record(judge(answer(200, {}, big)))
  t.match(r.reason, /parsed the first 512000 of \d+ bytes \(RFC 9309 section 2\.5\)/)
  t.equal(decideRobots({ record: r, url: `${ORIGIN}/late/x`, productToken: 'webkrab', serverNowMs: NOW }).action, 'allow')
  t.equal(decideRobots({ record: r, url: `${ORIGIN}/first/x`, productToken: 'webkrab', serverNowMs: NOW }).action, 'disallow')
})

t.test('robots.txt is due before the first request, stands for its lifetime, and is due again after it', async t => {
  t.equal(robotsReadDue(null, NOW).due, true)
  const r = record(judge(answer(200, { 'cache-control': 'max-age=3600' }, FILE)))
  t.equal(robotsReadDue(r, NOW + HOUR - 1).due, false)
  t.equal(robotsReadDue(r, NOW + HOUR).due, true)
  for (const [rec, at] of [[null, NOW], [r, NOW + HOUR - 1], [r, NOW + HOUR], [r, NOW + 2 * HOUR]] as const) {
    t.equal(robotsReadIsDue(rec, at), robotsReadDue(rec, at).due, 'the bare answer is the reasoned one\'s')
  }
  const due = decideRobots({ record: r, url: `${ORIGIN}/late/x`, productToken: 'webkrab', serverNowMs: NOW + HOUR })
  t.same(due, { action: 'read-robots', reason: robotsReadDue(r, NOW + HOUR).reason }, 'a read that is due says why, with the record\'s times')
  t.match(due, { reason: /past its lifetime: read again \(RFC 9309 section 2\.4\)/ })
  t.equal(robotsUrlOf('http://main.test:8080/some/page?x=1'), 'http://main.test:8080/robots.txt')
})

t.test('each URL gets its decision from the origin\'s record: read first, allow, disallow with the rule, or defer', async t => {
  const rules = record(judge(answer(200, {}, 'User-agent: *\nDisallow: /private/\n\nUser-agent: webkrab\nDisallow: /mine/\n')))
  const unavailable = record(judge(answer(404)))
  const unreachable = record(judge(answer(503, { 'retry-after': '600' })))
  const rows: Array<{ name: string, record: RobotsRecord | null, url: string, now?: number, mode?: 'obey' | 'ignore', action: string, reason?: RegExp }> = [
    { name: 'nothing read yet', record: null, url: `${ORIGIN}/a`, action: 'read-robots', reason: /before any other request/ },
    { name: 'the crawler\'s own group disallows', record: rules, url: `${ORIGIN}/mine/x`, action: 'disallow', reason: /line 5 "Disallow: \/mine\/"/ },
    { name: 'the "*" group is not the crawler\'s', record: rules, url: `${ORIGIN}/private/x`, action: 'allow' },
    { name: 'no rule matches', record: rules, url: `${ORIGIN}/public`, action: 'allow', reason: /no rule/ },
    { name: 'past its lifetime', record: rules, url: `${ORIGIN}/public`, now: NOW + DAY, action: 'read-robots', reason: /past its lifetime/ },
    { name: 'unavailable', record: unavailable, url: `${ORIGIN}/private/x`, action: 'allow', reason: /MAY access/ },
    { name: 'unreachable', record: unreachable, url: `${ORIGIN}/a`, action: 'defer', reason: /complete disallow/ },
    { name: 'unreachable, wait over', record: unreachable, url: `${ORIGIN}/a`, now: NOW + 600 * SECOND, action: 'read-robots' },
    { name: 'another origin\'s record', record: rules, url: 'http://other.test/mine/x', action: 'read-robots', reason: /each origin has its own/ },
    { name: '--robots ignore', record: null, url: `${ORIGIN}/mine/x`, mode: 'ignore', action: 'allow', reason: /--robots ignore/ }
  ]
  for (const row of rows) {
    const d = decideRobots({ record: row.record, url: row.url, productToken: 'webkrab/0.1.0 (reference crawler)', serverNowMs: row.now ?? NOW, mode: row.mode })
    t.equal(d.action, row.action, `${row.name}: ${row.action}`)
    if (row.reason !== undefined) t.match(d.reason, row.reason, `${row.name}: the reason says why`)
  }
  const d = decideRobots({ record: rules, url: `${ORIGIN}/mine/x`, productToken: 'webkrab', serverNowMs: NOW })
  t.same(d.action === 'disallow' ? { outcome: d.outcome, rule: d.rule } : null, { outcome: 'disallowed-by-robots', rule: { line: 5, text: 'Disallow: /mine/' } })
  const deferred = decideRobots({ record: unreachable, url: `${ORIGIN}/a`, productToken: 'webkrab', serverNowMs: NOW })
  t.equal(deferred.action === 'defer' ? deferred.until : null, NOW + 600 * SECOND)
})

t.test('Crawl-delay is honoured as an operator option, capped, or ignored, and says it is not RFC 9309\'s', async t => {
  const r = record(judge(answer(200, {}, 'User-agent: *\nCrawl-delay: 2\nDisallow: /p\n\nUser-agent: webkrab\nCrawl-delay: 90\n')))
  const honour = robotsCrawlDelayMs(r, 'webkrab', { mode: 'honour', capMs: 60_000 })
  t.equal(honour.delayMs, 60_000)
  t.match(honour.reason, /asks 90s; capped at 1m.*not part of RFC 9309/)
  t.same(honour.rule, { line: 6, text: 'Crawl-delay: 90' })
  t.equal(robotsCrawlDelayMs(r, 'other', { mode: 'honour', capMs: 60_000 }).delayMs, 2000)
  t.equal(robotsCrawlDelayMs(r, 'webkrab', { mode: 'ignore', capMs: 60_000 }).delayMs, 0)
  t.equal(robotsCrawlDelayMs(record(judge(answer(404))), 'webkrab', { mode: 'honour', capMs: 60_000 }).delayMs, 0)
  t.equal(robotsCrawlDelayMs(record(judge(answer(200, {}, FILE))), 'webkrab', { mode: 'honour', capMs: 60_000 }).delayMs, 0)
})

t.test('the default options are RFC 9309\'s numbers: five redirects, 24 hours, 500 KiB', async t => {
  t.equal(DEFAULT_ROBOTS_FETCH.maxRedirects, 5)
  t.equal(DEFAULT_ROBOTS_FETCH.maxLifetimeMs, DAY)
  t.equal(DEFAULT_ROBOTS_FETCH.parsingLimitBytes, 512000)
})
