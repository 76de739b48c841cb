import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../property.js'
import { cacheDirectives, parseList, parseQValue, weightedList } from '../../../common/http/header-lists.js'

t.test('a list splits at commas outside quoted strings, drops empty elements and reads parameters (RFC 9110 5.6.1, 5.6.4, 5.6.6)', async t => {
  const list = parseList(' , gzip;q=0.5 ,, br ; Q = 1 ,x="a, b; c",y="say \\"hi\\"" ')
  t.same(list.map(e => [e.name, e.value]), [['gzip', null], ['br', null], ['x', 'a, b; c'], ['y', 'say "hi"']])
  t.same([...list[0].params], [['q', '0.5']])
  t.same([...list[1].params], [['q', '1']], 'parameter names are case-insensitive; whitespace around = is tolerated')
  t.same(parseList(undefined), [])
  t.same(parseList(''), [])
})

t.test('Cache-Control directives: case-insensitive names, first occurrence wins, quoted arguments are not directives (RFC 9111 4.2.1, 5.2)', async t => {
  const d = cacheDirectives('Max-Age=60, max-age=0, private="no-store, no-cache", must-revalidate')
  t.equal(d.get('max-age'), '60', 'the first max-age counts')
  t.equal(d.get('private'), 'no-store, no-cache', 'a quoted argument keeps its commas')
  t.notOk(d.has('no-store'), 'no-store inside private="…" names a field, not the directive')
  t.notOk(d.has('no-cache'))
  t.equal(d.get('must-revalidate'), null, 'a directive without an argument')
  t.ok(cacheDirectives('no-store="x"').has('no-store'))
  t.notOk(cacheDirectives('x-no-store-hint, no-storey').has('no-store'), 'a longer name is another directive')
})

t.test('a qvalue is 0 to 1 with at most three decimals; anything else is no weight (RFC 9110 12.4.2)', async t => {
  for (const ok of ['0', '0.', '0.5', '0.125', '1', '1.000']) t.not(parseQValue(ok), null, ok)
  for (const bad of ['', '2', '1.5', '0.1234', '-0', 'abc', '.5', '1.001']) t.equal(parseQValue(bad), null, JSON.stringify(bad))
  t.same(weightedList('fr-CH, fr;q=0.9, en;q=2, de;q=abc, *;q=0.1'), [{ value: 'fr-ch', q: 1 }, { value: 'fr', q: 0.9 }, { value: '*', q: 0.1 }],
    'elements whose q is not a qvalue are dropped')
})

t.test('any string: the list reader never throws, names are lower-case and never empty, and a directive name is present only when it is an element', async t => {
  holds(t, fc.property(fc.string(), s => {
    const list = parseList(s)
    for (const e of list) {
      if (e.name.length === 0 || e.name !== e.name.toLowerCase()) return false
    }
    for (const w of weightedList(s)) if (!(w.q >= 0 && w.q <= 1)) return false
    return true
  }), { numRuns: 2000 })
  holds(t, fc.property(fc.array(fc.constantFrom('no-store', 'no-cache', 'max-age=5', 'private', 'public', 's-maxage=9', 'immutable')), fc.constantFrom('no-store', 'no-cache', 'immutable'),
    (directives, name) => cacheDirectives(directives.join(', ')).has(name) === directives.includes(name)))
  holds(t, fc.property(fc.string().filter(s => !s.includes('"') && !s.includes('\\')), inner =>
    !cacheDirectives(`private="${inner}"`).has('no-store')))
})
