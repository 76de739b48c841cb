import t from 'tap'
import { needsTools } from '../tools.js'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { chromium, type BrowserContext } from 'playwright-core'
import { fromRoot } from '../../common/paths.js'
import { commandAdapter } from '../../conformance/adapters/command-adapter.js'
import { referenceAdapter } from '../../conformance/adapters/reference-adapter.js'
import { loadScenarios } from '../../conformance/load-scenarios.js'
import { renderScorecardHtml, renderScorecardText } from '../../conformance/reporters/scorecard.js'
import { runSuite, type SuiteResult } from '../../conformance/run-suite.js'
import { runEconomy } from '../../bench/economy.js'

/**
 * The crawler scorecard in Debian's Chromium: a column per crawler, each crawler's
 * three scores, and a failing cell that leads to its evidence.
 */
const CHROMIUM = '/usr/bin/chromium'
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
  '--disable-component-update', '--disable-sync']

// curl grades as a crawler here, its clock moved with libfaketime; the page is read in Chromium
const NO_TOOLS = needsTools('curl', 'faketime')
const NO_BROWSER = NO_TOOLS !== false ? NO_TOOLS : needsTools('chromium')
const scenarios = await loadScenarios([fromRoot('scenarios/validators')])
const plain = { ...commandAdapter({ command: 'curl --silent --globoff --output {state}/page {url}' }), name: 'curl-plain', version: '7.88' }
const [reference, curl] = NO_TOOLS !== false
  ? [{} as SuiteResult, {} as SuiteResult]
  : [await runSuite(scenarios, referenceAdapter(), { jobs: 4 }), await runSuite(scenarios, plain, { jobs: 4 })]
if (NO_TOOLS === false) {
  // the economy of both at a small size: curl reads no clock, so it is run as clock: none and needs no libfaketime
  const economy = await runEconomy([referenceAdapter(), { ...plain, accepts: { ...plain.accepts, clock: 'none' } }], { parameters: { pages: 40, days: 3, ratio: 0.25 } })
  reference.economy = economy.get('reference')
  curl.economy = economy.get('curl-plain')
}

t.test('the scorecard as text has the economy table: a row per crawler beside the reference ways and the oracle, sorted by bytes over the oracle, each with why', { skip: NO_TOOLS }, async t => {
  const text = renderScorecardText([reference, curl])
  const table = text.slice(text.indexOf('Economy: 40 pages, 3 site days, 10 visits a day'))
  t.ok(table.length > 0 && text.includes('Economy: 40 pages'), 'the economy follows the scores')
  const rows = table.split('\n').filter(l => /^\S+ +\d+\.\d{3} /.test(l)).map(l => ({ name: l.split(/ +/)[0], over: Number(l.split(/ +/)[1]) }))
  t.same(rows.map(r => r.name).sort(), ['curl-plain', 'oracle', 'ref:conditional', 'ref:planner', 'ref:unconditional', 'reference'].sort(), 'each crawler, the reference ways and the oracle')
  t.same(rows.map(r => r.over), [...rows.map(r => r.over)].sort((a, b) => a - b), 'sorted by bytes over the oracle')
  t.equal(rows.find(r => r.name === 'curl-plain')?.over, Number(curl.economy?.figures?.overOracle.toFixed(3)))
  t.match(table, /^curl-plain .*\n +Keeps no validator: every revisit is a full refetch\.$/m, 'each crawler says why')
  t.ok((curl.economy?.figures?.overOracle ?? 0) > 2, 'curl, which keeps nothing, spends several times the oracle minimum')
})

t.test('the scorecard as text gives each crawler its three scores and its passes per concern', { skip: NO_TOOLS }, async t => {
  const text = renderScorecardText([reference, curl])
  t.match(text, /^reference: 11\/11 scenarios pass/m)
  t.match(text, /^curl-plain \(7\.88\): \d+\/11 scenarios pass/m)
  t.match(text, /^ {2}RFC conformance: nothing graded; \d+ untested$/m, 'curl never makes a conditional request, so the RFC\'s rules on what one carries are not graded')
  t.match(text, /^ {2}WebKrab profile: SHOULD \d+\/\d+; \d+ consequences? not counted/m, 'it misses WebKrab\'s rule that a revisit revalidates, counted once, the rest as consequences')
  t.match(text, /^validators +11\/11 +\d+\/11$/m)
})

if (NO_BROWSER !== false) {
  t.test('the scorecard page in a browser', { skip: NO_BROWSER }, async () => {})
} else {
  const profile = mkdtempSync(join(tmpdir(), 'webkrab-chromium-'))
  const context: BrowserContext = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: ARGS, viewport: { width: 1280, height: 900 }, timeout: 30_000 })
  t.teardown(async () => {
    await context.close()
    rmSync(profile, { recursive: true, force: true })
  })

  t.test('the scorecard page has a column per crawler, their totals, and a failing cell leads to its evidence', async t => {
    const out = fromRoot('reports', 'out', 'scorecard')
    mkdirSync(out, { recursive: true })
    const file = join(out, 'test-scorecard.html')
    writeFileSync(file, renderScorecardHtml([reference, curl]))
    const page = await context.newPage()
    const requests: string[] = []
    const errors: string[] = []
    page.on('request', r => { requests.push(r.url()) })
    page.on('pageerror', e => { errors.push(e.message) })
    await page.goto(pathToFileURL(file).href)
    t.same(requests, [page.url()], 'the page loads nothing but itself')
    t.same(errors, [], 'no script errors')
    t.same(await page.$$eval('#scorecard thead th[data-column]', ths => ths.map(th => th.textContent)), ['reference', 'curl-plain (7.88)'], 'a column per crawler, named from its adapter')
    const totals = await page.$$eval('#totals tbody tr', rows => rows.map(r => ({ crawler: r.getAttribute('data-crawler'), rfc: r.querySelector('td[data-score="rfc"]')?.getAttribute('data-pass'), graded: r.querySelector('td[data-score="rfc"]')?.getAttribute('data-graded') })))
    t.same(totals.map(x => x.crawler), ['reference', 'curl-plain'])
    t.equal(Number(totals[0].rfc), reference.totals.scores.rfc.pass, 'the reference crawler\'s RFC score is its results\' figure')
    t.equal(Number(totals[1].rfc), curl.totals.scores.rfc.pass)
    t.equal(Number(totals[1].graded), curl.totals.scores.rfc.pass + curl.totals.scores.rfc.fail)

    const failing = curl.scenarios.find(s => s.verdict === 'optional-fail')
    t.ok(failing !== undefined, 'curl fails a validator scenario\'s SHOULD')
    const id = failing?.id ?? ''
    const cell = `tr.scenario-row[data-id="${id}"] td[data-column="1"] a`
    t.notOk(await page.isVisible(cell), 'a concern\'s scenarios are folded until it is opened')
    await page.click('details[data-concern="validators"] summary')
    // the toggle re-lays the page: wait for the row rather than race the layout
    const shown = await page.waitForSelector(cell, { state: 'visible', timeout: 10_000 }).then(() => true, () => false)
    t.ok(shown, 'opening the concern shows its scenarios')
    await page.click(cell)
    const evidence = `#ev-1-${id}`
    t.equal(new URL(page.url()).hash, `#ev-1-${id}`)
    t.ok(await page.isVisible(evidence), 'the cell leads to the evidence')
    const text = await page.textContent(evidence) ?? ''
    t.match(text, /was unconditional: it carried no If-None-Match/, 'what the server saw')
    t.match(text, /WebKrab profile, should/, 'the basis of the failed assertion')
    t.match(text, /rule revisit-revalidates/, 'and the rule it broke')
    await page.screenshot({ path: join(out, 'scorecard.png'), fullPage: false })
    rmSync(file)
  })

  t.test('the scorecard page shows the economy: bytes by crawler as bars, and a row per crawler sorted by bytes over the oracle', async t => {
    const out = fromRoot('reports', 'out', 'scorecard')
    mkdirSync(out, { recursive: true })
    const file = join(out, 'test-scorecard-economy.html')
    writeFileSync(file, renderScorecardHtml([reference, curl]))
    const page = await context.newPage()
    await page.goto(pathToFileURL(file).href)
    t.ok(await page.isVisible('#economy-card'), 'the economy card is shown')
    const rows = await page.$$eval('#economy tbody tr', trs => trs.map(tr => ({ id: tr.getAttribute('data-economy'), over: Number(tr.getAttribute('data-over-oracle')), why: tr.querySelector('td.note')?.textContent ?? '' })))
    t.same(rows.map(r => r.id).sort(), ['conditional', 'curl-plain', 'oracle', 'planner', 'reference', 'unconditional'].sort())
    t.same(rows.map(r => r.over), [...rows.map(r => r.over)].sort((a, b) => a - b), 'sorted by bytes over the oracle')
    t.match(rows.find(r => r.id === 'curl-plain')?.why, /^Keeps no validator/)
    const bars = await page.$$eval('#economy-chart g.bar', gs => gs.map(g => ({ id: g.getAttribute('data-economy'), value: Number(g.getAttribute('data-value')) })))
    t.equal(bars.find(b => b.id === 'curl-plain')?.value, curl.economy?.figures?.bytes.total, 'a bar of curl\'s bytes')
    t.equal(bars.find(b => b.id === 'oracle')?.value, curl.economy?.reference.conditional.oracleMinimumBytes, 'beside the oracle minimum')
    const box = await page.$eval('#economy-chart', el => { const r = el.getBoundingClientRect(); return { w: r.width, h: r.height } })
    t.ok(box.w > 300 && box.h > 100, `the chart is drawn (${box.w}×${box.h})`)
    await page.screenshot({ path: join(out, 'scorecard-economy.png'), fullPage: true })
    rmSync(file)
  })

  t.test('the results site opens in a browser: an index, a page per shipped crawler and per concern, each linked from the index and loading nothing but itself', async t => {
    const { loadResults } = await import('../../conformance/reporters/compare.js')
    const { writeResultsSite, crawlerSlugs } = await import('../../conformance/reporters/site.js')
    const { RESULTS_DIR } = await import('../../conformance/run-scorecard.js')
    const files = readdirSync(RESULTS_DIR).filter(f => f.endsWith('.json')).sort()
    const shipped = loadResults(files.map(f => join(RESULTS_DIR, f)))
    const dir = mkdtempSync(join(tmpdir(), 'webkrab-site-'))
    t.teardown(() => { rmSync(dir, { recursive: true, force: true }) })
    const written = writeResultsSite(shipped, dir)
    t.equal(written.filter(f => f.startsWith('crawlers/')).length, shipped.length, 'a page per crawler')
    const page = await context.newPage()
    const requests: string[] = []
    const errors: string[] = []
    page.on('request', r => { requests.push(r.url()) })
    page.on('pageerror', e => { errors.push(e.message) })
    await page.goto(pathToFileURL(join(dir, 'index.html')).href)
    const crawlerLinks = await page.$$eval('#totals a.crawler-page', as => as.map(a => a.getAttribute('href')))
    t.same(crawlerLinks, crawlerSlugs(shipped).map(s => `crawlers/${s}.html`), 'the index links every crawler\'s page')
    const concernLinks = await page.$$eval('#scorecard a.concern-page', as => as.map(a => a.getAttribute('href')))
    t.equal(concernLinks.length, new Set(shipped.flatMap(r => r.scenarios.map(s => s.concern))).size, 'and every concern\'s')
    for (const [i, r] of shipped.entries()) {
      requests.length = 0
      await page.goto(pathToFileURL(join(dir, 'index.html')).href)
      await page.click(`#totals a.crawler-page >> nth=${i}`)
      await page.waitForLoadState('load')
      t.equal(await page.textContent('header.page h1'), `Conformance: ${r.crawler.name}`, `${r.crawler.name}: its page opens from the index`)
      t.equal(await page.$$eval('#scenarios tbody tr', trs => trs.length), r.scenarios.length, `${r.crawler.name}: every verdict`)
      t.same(requests.filter(u => !u.startsWith('file:')), [], `${r.crawler.name}: nothing but the site's own pages is loaded`)
    }
    await page.goto(pathToFileURL(join(dir, 'concerns', 'validators.html')).href)
    t.same(await page.$$eval('#comparison thead th', ths => ths.slice(2).map(th => th.textContent?.trim())), shipped.map(r => r.crawler.name), 'a concern\'s page has a column per crawler')
    await page.click('nav.page a >> nth=0')
    await page.waitForLoadState('load')
    t.match(page.url(), /index\.html$/, 'and leads back to the index')
    t.same(errors, [], 'no script errors on any page')
  })

  t.test('the shipped scorecard has a robots.txt section a reader can link to: per crawler, per behaviour, what the server saw; and the crawler best practices view', async t => {
    const { loadResults } = await import('../../conformance/reporters/compare.js')
    const { RESULTS_DIR } = await import('../../conformance/run-scorecard.js')
    const { serverSaw } = await import('../../conformance/reporters/scorecard-views.js')
    const shipped = loadResults(readdirSync(RESULTS_DIR).filter(f => f.endsWith('.json')).sort().map(f => join(RESULTS_DIR, f)))
    const robots = [...new Set(shipped.flatMap(r => r.scenarios.filter(s => s.concern === 'robots').map(s => s.id)))].sort()
    t.ok(robots.length >= 25, `the committed results grade ${robots.length} robots.txt behaviours`)
    const out = fromRoot('reports', 'out', 'scorecard')
    mkdirSync(out, { recursive: true })
    const file = join(out, 'test-scorecard-robots.html')
    writeFileSync(file, renderScorecardHtml(shipped))
    t.teardown(() => { rmSync(file, { force: true }) })
    const page = await context.newPage()
    const errors: string[] = []
    page.on('pageerror', e => { errors.push(e.message) })
    const target = 'robots-429-waited-out-then-obeyed'
    await page.goto(`${pathToFileURL(file).href}#robots-${target}`)
    t.ok(await page.isVisible(`#robots-${target}`), 'a link to one behaviour lands on its row')
    t.equal(await page.$eval(':target', el => el.id), `robots-${target}`, 'the row is the link\'s target')
    t.same(await page.$$eval('#robots-table tbody tr[data-id]', trs => trs.map(tr => tr.getAttribute('data-id'))), robots, 'a row per behaviour')
    t.same(await page.$$eval('#robots-table thead th[data-column]', ths => ths.length), shipped.length, 'a column per crawler')
    for (const [i, r] of shipped.entries()) {
      const s = r.scenarios.find(x => x.id === target)
      if (s === undefined) continue
      const cell = await page.$eval(`#robots-${target} td[data-column="${i}"]`, td => ({ verdict: td.getAttribute('data-verdict'), saw: td.querySelector('.note')?.getAttribute('title') }))
      t.equal(cell.verdict, s.verdict, `${r.crawler.name}: its verdict`)
      t.equal(cell.saw, serverSaw(s), `${r.crawler.name}: what the server saw, from its results`)
    }
    const reference = shipped.findIndex(r => r.crawler.name === 'reference')
    t.match(await page.textContent(`#robots-${target} td[data-column="${reference}"] .note`), /GET \/robots\.txt -> 429.*GET \/robots\.txt -> 200/, 'the reference crawler\'s cell shows the 429 and the file read after it')
    const practices = await page.$$eval('#practices-table tbody tr', trs => trs.map(tr => tr.getAttribute('data-section')))
    t.ok(practices.length >= 4, `the crawler best practices view has ${practices.length} of the draft's sentences`)
    t.match(await page.textContent('#practices'), /draft-illyes-webbotauth-cbcp-00/, 'and names the draft')
    t.same(errors, [], 'no script errors')
    await page.screenshot({ path: join(out, 'scorecard-robots.png'), fullPage: false })
  })
}
