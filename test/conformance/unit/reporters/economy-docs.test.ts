import t from 'tap'
import { readdirSync, readFileSync } from 'node:fs'
import { fromRoot } from '../../../../common/paths.js'
import type { SuiteResult } from '../../../../conformance/run-suite.js'
import { economyText } from '../../../../conformance/reporters/economy-table.js'

/**
 * The economy table the README and docs/conformance.md show is the one `npm run scorecard`
 * writes from the committed results: a figure edited by hand, or results regenerated without
 * the docs following, fails here.
 */

const RESULTS = fromRoot('conformance/results')
const committed: SuiteResult[] = readdirSync(RESULTS).filter(f => f.endsWith('.json')).sort()
  .map(f => JSON.parse(readFileSync(`${RESULTS}/${f}`, 'utf8')) as SuiteResult)

/** The fenced block of a Markdown file that starts with the economy's caption line. */
function economyBlock (markdown: string): string | null {
  const m = /```\n(Economy: [^\n]*\n[\s\S]*?)```/.exec(markdown)
  return m === null ? null : m[1]
}

t.test('every shipped crawler has an economy in its committed results', async t => {
  for (const r of committed) t.ok(r.economy?.figures, `${r.crawler.name} has economy figures`)
})

for (const doc of ['README.md', 'docs/conformance.md']) {
  t.test(`${doc} shows the economy table of the committed results`, async t => {
    const block = economyBlock(readFileSync(fromRoot(doc), 'utf8'))
    t.not(block, null, `${doc} has a fenced block starting "Economy: "`)
    t.equal(block, economyText(committed), `${doc}'s table is economyText of conformance/results/*.json`)
  })
}
