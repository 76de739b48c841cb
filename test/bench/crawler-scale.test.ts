import t from 'tap'
import { formatCrawlerScaleBench, runCrawlerScaleBench } from '../../bench/crawler-scale.js'

// `webkrab bench crawler --scale` on small steps: each list length is crawled to its end in a
// process of its own, which reports its own peak RSS and CPU time, and the step's store and
// report are measured before its folder goes; with --origins the list spreads over a site
// file's origins.

for (const origins of [1, 3]) {
  t.test(`each step of the growth benchmark (${origins} origin${origins === 1 ? '' : 's'}) reports the crawling process's own figures and what it left on disk`, async t => {
    const settings = { steps: [200, 400], pageBytes: 512, concurrency: 4, retain: 'none', origins }
    const lines: string[] = []
    const result = await runCrawlerScaleBench(settings, line => { lines.push(line) })
    t.same(result.steps.map(s => [s.pages, s.exitCode]), [[200, 0], [400, 0]], 'each list was crawled to its end')
    for (const step of result.steps) {
      t.ok(step.peakRssBytes > 10 * 1024 * 1024, `the child's own peak RSS (${step.peakRssBytes} bytes)`)
      t.ok(step.cpuMicrosPerPage > 0 && step.pagesPerSecond > 0, 'its CPU per page and pages per second')
      t.ok(step.storeBytes > 0 && step.reportBytes > 0, 'the sizes of its store and its report')
    }
    t.equal(lines.length, 2, 'one progress line a step')
    const table = formatCrawlerScaleBench(result)
    t.match(table, origins === 1 ? /one origin/ : /3 origins \(URL i on origin i mod 3\)/)
    t.match(table, /pages\/s at 400 is \d+% of pages\/s at 200/)
  })
}
