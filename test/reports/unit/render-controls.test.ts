import t from 'tap'
import { renderMarkdown } from '../../../reports/render-md.js'
import { renderTerminal } from '../../../reports/render-terminal.js'
import { stripControls } from '../../../reports/strip-controls.js'
import { makeReport } from '../report-factory.js'

// what a hostile server or scenario would put in a report's strings
const TITLE = '\u001b]0;pwned\u0007'
const CLEAR = '\u001b[2J\u001b[H'
const CSI_C1 = '\u009b31m'
const BIDI = '\u202e'

function hostileReport (): ReturnType<typeof makeReport> {
  const report = makeReport()
  const r = report.resources.find(x => x.outcome === 'failed' || x.outcome === 'incomplete') ?? report.resources[0]
  r.url = `${r.url}?x=${TITLE}`
  r.reason = `server said ${CLEAR}${CSI_C1} and ${BIDI}gnp.exe`
  report.run.stoppedBy = `completed${CLEAR}` as typeof report.run.stoppedBy
  return report
}

/** Every control character in `text` but the colours a renderer writes itself (ESC [ digits m) and the newlines of its layout. */
function strayControls (text: string): string[] {
  // eslint-disable-next-line no-control-regex
  return [...text.replace(/\u001b\[[0-9;]*m/g, '').replace(/\n/g, '').matchAll(/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g)].map(m => m[0])
}

t.test('the terminal summary prints a report\'s strings as data: no escape sequence from a URL or a reason reaches the terminal', async t => {
  for (const color of [false, true]) {
    const out = renderTerminal(hostileReport(), { color })
    t.same(strayControls(out), [], `no stray control characters (color ${String(color)})`)
    t.match(out, '\\x1b]0;pwned\\x07', 'the window-title sequence is shown, not obeyed')
    t.match(out, '\\x1b[2J', 'the clear-screen sequence is shown, not obeyed')
    t.match(out, '\\x9b31m', 'a one-byte C1 CSI is shown too')
    t.match(out, '\\u202egnp.exe', 'a bidirectional override is shown, not applied')
  }
})

t.test('the Markdown summary carries no control character from a report\'s strings', async t => {
  const md = renderMarkdown(hostileReport())
  t.same(strayControls(md), [])
  t.match(md, 'pwned')
})

t.test('stripControls keeps every printable character, and makes every C0 and C1 control visible', async t => {
  t.equal(stripControls('café ✓ | * _'), 'café ✓ | * _')
  t.equal(stripControls('a\nb\tc\u0000\u007f\u0085'), 'a\\x0ab\\x09c\\x00\\x7f\\x85')
})

t.test('a quoted crawler\'s output keeps its line breaks readable where a one-line message quotes it, and still escapes the rest', async t => {
  t.equal(stripControls('usage: crawler URL\r\n  --help\tshow this\n\u001b[2Jgone', { lineBreaks: 'mark' }), 'usage: crawler URL ↵   --help show this ↵ \\x1b[2Jgone')
})
