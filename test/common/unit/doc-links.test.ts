import t from 'tap'
import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { dirname, join, relative } from 'node:path'
import { fromRoot } from '../../../common/paths.js'

// Every relative link of the README, CONTRIBUTING.md and the reference pages in docs/ leads
// somewhere: the file exists, and an anchor names a heading of the page it points into.

const PAGES = [fromRoot('README.md'), fromRoot('CONTRIBUTING.md'), ...readdirSync(fromRoot('docs')).filter(f => f.endsWith('.md')).map(f => fromRoot('docs', f))]

/** The text outside fenced code blocks, where links are links. */
function prose (md: string): string {
  return md.split(/^```.*$/m).filter((_, i) => i % 2 === 0).join('\n')
}

/** GitHub's anchor for a heading: lower case, punctuation but dashes dropped, spaces to dashes; repeats get -1, -2. */
export function anchorsOf (md: string): Set<string> {
  const seen = new Map<string, number>()
  const out = new Set<string>()
  for (const line of prose(md).split('\n')) {
    const m = /^#{1,6} (.+)$/.exec(line)
    if (m === null) continue
    const base = m[1].trim().toLowerCase().replace(/<[^>]+>/g, '').replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/ /g, '-')
    const n = seen.get(base) ?? 0
    seen.set(base, n + 1)
    out.add(n === 0 ? base : `${base}-${n}`)
  }
  return out
}

function linksOf (md: string): string[] {
  const text = prose(md).replace(/`[^`\n]*`/g, '')
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map(m => m[1]).filter(l => !/^(https?:|mailto:)/.test(l))
}

t.test('the anchor of a heading is GitHub\'s', async t => {
  t.same([...anchorsOf('# How timing is graded\n## Adapters: grading your own crawler\n## `--jobs` and more\n## Adapters: grading your own crawler\n```\n# not a heading\n```\n')],
    ['how-timing-is-graded', 'adapters-grading-your-own-crawler', '--jobs-and-more', 'adapters-grading-your-own-crawler-1'])
})

t.test('every relative link of the documentation resolves, anchors included', async t => {
  t.ok(PAGES.length >= 8, `${PAGES.length} pages`)
  for (const page of PAGES) {
    const md = readFileSync(page, 'utf8')
    const broken: string[] = []
    for (const link of linksOf(md)) {
      const [path, anchor] = link.split('#') as [string, string | undefined]
      const target = path === '' ? page : join(dirname(page), decodeURIComponent(path))
      if (!existsSync(target)) { broken.push(`${link}: no such file`); continue }
      if (anchor !== undefined && target.endsWith('.md') && !anchorsOf(readFileSync(target, 'utf8')).has(anchor)) broken.push(`${link}: no heading #${anchor} in ${relative(fromRoot(), target)}`)
    }
    t.same(broken, [], relative(fromRoot(), page))
  }
})
