import t from 'tap'
import { Agent, request } from 'undici'
import { decideRobots } from '../../../../crawler/policy/robots-decision.js'
import { judgeRobotsAnswer, type RobotsAnswer, type RobotsRecord } from '../../../../crawler/policy/robots-fetch.js'
import { ROBOTS_PARSING_LIMIT_BYTES } from '../../../../crawler/policy/robots-rules.js'
import { parseHttpDate, startFixtureSite } from '../../../../fixture-site/index.js'

// The robots.txt policy against the fixture's robots.txt behaviours, over real sockets:
// each variant is read as a crawler would (redirects one by one, the body capped a little
// past the parsing limit) and judged; then a URL of the origin is decided.

const running = await startFixtureSite()
const agent = new Agent({ headersTimeout: 500, bodyTimeout: 500 })
t.teardown(async () => {
  await agent.close()
  await running.close()
})
const main = running.url
const noJitter = (): number => 0

async function fetchOnce (url: string): Promise<{ answer: RobotsAnswer, dateMs: number | null }> {
  try {
    const r = await request(url, { dispatcher: agent, headers: { 'user-agent': 'webkrab/0.1.0 (reference crawler)' } })
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of r.body) {
      // what a crawler keeps: the parsing limit and a little more, never the whole of a huge file
      if (size < ROBOTS_PARSING_LIMIT_BYTES + 65536) chunks.push(chunk as Buffer)
      size += (chunk as Buffer).length
    }
    const headers = Object.fromEntries(Object.entries(r.headers).map(([k, v]) => [k, Array.isArray(v) ? v.join(', ') : String(v)]))
    return { answer: { kind: 'response', status: r.statusCode, headers, body: Buffer.concat(chunks) }, dateMs: parseHttpDate(headers.date ?? '') }
  } catch (err) {
    return { answer: { kind: 'network-error', error: (err as { code?: string }).code ?? (err as Error).message }, dateMs: null }
  }
}

/** Reads a robots.txt behaviour at `path` as the policy directs, for the main origin. */
async function read (path: string): Promise<RobotsRecord> {
  const chain = [`${main}${path}`]
  for (;;) {
    const { answer, dateMs } = await fetchOnce(chain[chain.length - 1])
    const step = judgeRobotsAnswer({ origin: main, chain, answer, serverNowMs: dateMs ?? running.clock.now(), previous: null, random: noJitter })
    if (step.next === 'settled') return step.record
    chain.push(step.url)
  }
}

const decide = (record: RobotsRecord, path: string): string => decideRobots({ record, url: `${main}${path}`, productToken: 'webkrab', serverNowMs: record.readAt }).action

t.test('each fixture robots.txt behaviour is judged as RFC 9309 says, and decides the URLs it was made for', async t => {
  const rows: Array<{ path: string, access: RobotsRecord['access'], urls?: Array<[string, string]>, reason?: RegExp }> = [
    { path: '/robots/basic', access: 'rules', urls: [['/private/x', 'disallow'], ['/private/open', 'allow'], ['/validators/none', 'disallow'], ['/validators/strong', 'allow']] },
    { path: '/robots/bom', access: 'rules', urls: [['/private/x', 'disallow'], ['/private/open', 'allow']] },
    { path: '/robots/crlf', access: 'rules', urls: [['/private/x', 'disallow'], ['/private/open', 'allow']] },
    { path: '/robots/cr', access: 'rules', urls: [['/private/x', 'disallow'], ['/private/open', 'allow']] },
    { path: '/robots/agents', access: 'rules', urls: [['/agents/webkrab/x', 'disallow'], ['/agents/merged/x', 'disallow'], ['/agents/other', 'allow']] },
    { path: '/robots/garbage', access: 'rules', urls: [['/garbage/before/x', 'disallow'], ['/garbage/after/x', 'disallow'], ['/garbage/typo/x', 'allow']] },
    { path: '/robots/percent-encoding', access: 'rules', urls: [['/~tilde/x', 'disallow'], ['/%7Eplain/x', 'disallow'], ['/caf%C3%A9/x', 'disallow'], ['/na%C3%AFve/x', 'disallow'], ['/a/b', 'allow']] },
    { path: '/robots/wildcards', access: 'rules', urls: [['/docs/a.pdf', 'disallow'], ['/docs/a.pdf?x=1', 'allow'], ['/search', 'allow'], ['/search?q=1', 'disallow']] },
    { path: '/robots/limit-at', access: 'rules', urls: [['/limit/inside/x', 'disallow'], ['/limit/first/x', 'disallow']] },
    { path: '/robots/limit-over', access: 'rules', urls: [['/limit/beyond/x', 'allow'], ['/limit/first/x', 'disallow']], reason: /parsed the first 512000 of 512025 bytes/ },
    { path: '/robots/limit-far', access: 'rules', urls: [['/limit/far/x', 'allow'], ['/limit/first/x', 'disallow']] },
    { path: '/robots/empty', access: 'rules', urls: [['/anything', 'allow']] },
    { path: '/robots/disallow-all', access: 'rules', urls: [['/anything', 'disallow'], ['/robots.txt', 'allow']] },
    { path: '/robots/status-404', access: 'allow-all', urls: [['/private/x', 'allow']] },
    { path: '/robots/status-410', access: 'allow-all' },
    { path: '/robots/status-429-retry-after', access: 'disallow-all', urls: [['/a', 'defer']], reason: /Retry-After: 3600 says 1h/ },
    { path: '/robots/status-503-html', access: 'disallow-all', urls: [['/a', 'defer']], reason: /Retry-After: 600 says 10m/ },
    { path: '/robots/status-503-retry-date', access: 'disallow-all', reason: /says 1h/ },
    { path: '/robots/status-500', access: 'disallow-all' },
    { path: '/robots/redirect-5', access: 'rules', urls: [['/redirected/x', 'disallow']], reason: /after 5 redirects/ },
    { path: '/robots/redirect-6', access: 'allow-all', urls: [['/redirected/x', 'allow']], reason: /more than 5 consecutive redirects/ },
    { path: '/robots/redirect-offsite', access: 'rules', urls: [['/redirected/x', 'disallow']] },
    { path: '/robots/cache-week', access: 'rules', reason: /cut to 1d/ },
    { path: '/robots/timeout', access: 'disallow-all', reason: /network error: UND_ERR_HEADERS_TIMEOUT/ },
    { path: '/robots/stall', access: 'disallow-all', reason: /network error: UND_ERR_BODY_TIMEOUT/ },
    { path: '/robots/reset', access: 'disallow-all', reason: /network error/ }
  ]
  for (const row of rows) {
    const record = await read(row.path)
    t.equal(record.access, row.access, `${row.path}: ${row.access}`)
    t.equal(record.origin, main, `${row.path}: the rules are the first authority's`)
    if (row.reason !== undefined) t.match(record.reason, row.reason, `${row.path}: ${String(row.reason)}`)
    for (const [path, action] of row.urls ?? []) t.equal(decide(record, path), action, `${row.path}: ${path} ${action}`)
  }
  // every read, hops included, is in the journal
  const hops = running.journal.entries().filter(e => e.path === '/robots/redirect-5')
  t.equal(hops.length, 6)
})
