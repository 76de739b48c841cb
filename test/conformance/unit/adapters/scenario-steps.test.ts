import t from 'tap'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { CrawlerAdapter } from '../../../../conformance/adapters/adapter-types.js'
import { parseScenario } from '../../../../conformance/load-scenarios.js'
import { runScenario } from '../../../../conformance/run-scenario.js'

/** What a crawler saw of one response, step by step. */
interface Saw { step: number, path: string, status: number, date: string | null, etag: string | null, atMs: number }

/**
 * A minimal crawler for these tests: it keeps the last ETag per URL and sends it
 * back, and records what each response said, so a test can see what the steps
 * between crawls did to the site.
 */
function probe (): { adapter: CrawlerAdapter, saw: Saw[] } {
  const saw: Saw[] = []
  const etags = new Map<string, string>()
  const adapter: CrawlerAdapter = {
    name: 'probe', kind: 'command', describe: 'fetch() with If-None-Match', skip: new Map(), expectedFailures: [], timeoutMs: null, source: null,
    accepts: { options: 'all', headers: true, state: true, clock: 'native', reports: false },
    crawl: async (req) => {
      for (const url of req.urls) {
        const stored = etags.get(url)
        const res = await fetch(url, { headers: stored === undefined ? {} : { 'if-none-match': stored } })
        await res.arrayBuffer()
        const etag = res.headers.get('etag')
        if (etag !== null) etags.set(url, etag)
        saw.push({ step: req.step, path: new URL(url).pathname, status: res.status, date: res.headers.get('date'), etag, atMs: performance.now() })
      }
      return { report: null, reportError: null, error: null, exitCode: 0, timedOut: false, output: '' }
    }
  }
  return { adapter, saw }
}

const STEPS = `id: validators-steps
name: The steps between crawls move the site's clock and change its content.
kind: required
refs: ["RFC 9110 §13.1.2"]
steps:
  - crawl: { urls: [/validators/strong, /validators/weak] }
  - advance: 1d
  - crawl: { urls: [/validators/strong, /validators/weak] }
  - change: { path: /validators/strong, kind: semantic }
  - change: { path: /validators/weak, kind: cosmetic }
  - crawl: { urls: [/validators/strong, /validators/weak] }
  - wait: 200ms
  - crawl: { urls: [/validators/strong] }
assertions:
  - { id: changed, level: must, reason: "RFC 9110 §13.1.2: a semantic change moves the strong ETag, so the revalidation gets a 200", requests: { path: /validators/strong, step: 6, status: 200, count: 1 } }
  - { id: weak-kept, level: must, reason: "RFC 9110 §8.8.3.2: a cosmetic change keeps the weak ETag, so the revalidation gets a 304", requests: { path: /validators/weak, step: 6, status: 304, count: 1 } }
`

t.test('advance moves the Date the site sends, change alters its content, and wait passes real time', async t => {
  const dir = mkdtempSync(join(tmpdir(), 'webkrab-steps-'))
  const scenario = await parseScenario(STEPS, join(dir, 'validators', 'validators-steps.yaml'))
  const { adapter, saw } = probe()
  const r = await runScenario(scenario, adapter, join(dir, 'state'))
  t.equal(r.verdict, 'pass', JSON.stringify(r.assertions))
  const at = (step: number, path: string): Saw | undefined => saw.find(s => s.step === step && s.path === path)

  const dateOf = (step: number, path: string): number => Date.parse(at(step, path)?.date ?? '')
  t.ok(Math.abs(dateOf(1, '/validators/strong') - Date.now()) < 60_000, 'site time starts at the host\'s time, so the crawler\'s clock and the site\'s agree')
  const moved = dateOf(3, '/validators/strong') - dateOf(1, '/validators/strong')
  t.ok(moved >= 86_400_000 && moved < 86_400_000 + 10_000, `advance: 1d moved site time a day, at once (${moved} ms)`)
  t.equal(at(3, '/validators/strong')?.status, 304, 'nothing changed before the change steps')
  t.equal(at(6, '/validators/strong')?.status, 200)
  t.not(at(6, '/validators/strong')?.etag, at(1, '/validators/strong')?.etag, 'the semantic change gave the strong ETag a new value')
  t.equal(at(6, '/validators/weak')?.status, 304, 'the cosmetic change left the weak ETag as it was')
  const drift = dateOf(8, '/validators/strong') - dateOf(3, '/validators/strong')
  t.ok(drift >= 0 && drift < 10_000, `wait adds no site time beyond the real time it takes (${drift} ms)`)
  const waited = (at(8, '/validators/strong')?.atMs ?? 0) - (at(6, '/validators/weak')?.atMs ?? 0)
  t.ok(waited >= 200, `wait: 200ms passed real time between the crawls (${Math.round(waited)} ms)`)
  t.same(r.steps.map(s => s.type), ['crawl', 'advance', 'crawl', 'change', 'change', 'crawl', 'wait', 'crawl'], 'every step ran, in order')
})
