import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../../property.js'
import { createHash } from 'node:crypto'
import { ContentDigester, digestOf, judgeChange, normalisationFor } from '../../../../crawler/policy/change-detection.js'

const HTML = 'text/html; charset=utf-8'
const page = '<!doctype html>\n<html><body><h1>Title</h1>\n<p>revision 1</p>\n<p>some words here</p>\n</body></html>\n'

t.test('the strict digest is the SHA-256 of the bytes', async t => {
  const expected = `sha256:${createHash('sha256').update(page).digest('hex')}`
  t.equal(digestOf(page, HTML).strict, expected)
})

t.test('a comment or whitespace change leaves the semantic digest alone and moves the strict one', async t => {
  const a = digestOf(page, HTML)
  const cosmetic = digestOf(page.replace('</body>', '<!-- build 7 --></body>') + '   \n', HTML)
  t.not(cosmetic.strict, a.strict)
  t.equal(cosmetic.semantic, a.semantic)
  const semantic = digestOf(page.replace('revision 1', 'revision 2'), HTML)
  t.not(semantic.semantic, a.semantic)
})

t.test('JSON re-indented is the same semantically', async t => {
  const v = { title: 't', revision: 3, text: 'a b c' }
  t.equal(digestOf(JSON.stringify(v), 'application/json').semantic, digestOf(JSON.stringify(v, null, 1) + '  \n', 'application/json').semantic)
})

t.test('binary content is compared byte for byte in both digests', async t => {
  const d = digestOf(Buffer.from([1, 2, 3, 32, 32]), 'application/octet-stream')
  t.equal(d.semantic, d.strict)
})

t.test('digests do not depend on how the body was split into chunks', async t => {
  const body = Buffer.from(page.replace('</body>', '<!-- a comment -- with dashes --></body>') + '\t\n')
  const whole = digestOf(body, HTML)
  holds(t, fc.property(fc.array(fc.nat({ max: body.length }), { maxLength: 12 }), cuts => {
    const points = [...new Set(cuts)].sort((a, b) => a - b)
    const d = new ContentDigester(HTML)
    let at = 0
    for (const p of [...points, body.length]) {
      d.update(body.subarray(at, p))
      at = p
    }
    const got = d.digest()
    return got.strict === whole.strict && got.semantic === whole.semantic
  }))
})

t.test('--change strict counts a cosmetic change, --change semantic does not', async t => {
  const a = digestOf(page, HTML)
  const b = digestOf(page + '<!-- x -->', HTML)
  const strict = judgeChange({ strict: a.strict, semantic: a.semantic }, b, 'strict')
  t.equal(strict.kind, 'cosmetic')
  t.equal(strict.changed, true)
  const semantic = judgeChange({ strict: a.strict, semantic: a.semantic }, b, 'semantic')
  t.equal(semantic.changed, false)
  t.equal(judgeChange({ strict: a.strict, semantic: a.semantic }, a, 'strict').kind, 'same')
  t.equal(judgeChange(null, a, 'strict').kind, 'new')
})

t.test('each Content-Type gets its own normalisation, whichever came before it', async t => {
  const markup = { text: true, comments: { open: '<!--', close: '-->' } }
  const block = { text: true, comments: { open: '/*', close: '*/' } }
  const text = { text: true, comments: null }
  const bytes = { text: false, comments: null }
  // a crawl asks page after page, mostly the same type: the answer must follow the type asked
  const asked: Array<[string | null | undefined, unknown]> = [
    ['text/html; charset=utf-8', markup], ['text/html; charset=utf-8', markup], ['image/png', bytes],
    ['text/html; charset=utf-8', markup], ['TEXT/CSS', block], [undefined, bytes], ['application/ld+json', text],
    [null, bytes], ['text/plain', text], ['application/atom+xml', markup], ['application/javascript', block]
  ]
  for (const [type, want] of asked) t.same(normalisationFor(type), want, String(type))
})
