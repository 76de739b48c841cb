import t from 'tap'
import { chooseLanguage, negotiateEncoding } from '../../../fixture-site/index.js'

t.test('the coding with the highest q among those offered wins; q=0 refuses; * stands for the rest (RFC 9110 12.5.3)', async t => {
  t.equal(negotiateEncoding('gzip;q=0.5, br', ['gzip', 'br']), 'br')
  t.equal(negotiateEncoding('gzip;q=0', ['gzip']), null)
  t.equal(negotiateEncoding('identity', ['gzip']), null)
  t.equal(negotiateEncoding('*', ['deflate']), 'deflate')
  t.equal(negotiateEncoding(undefined, ['gzip']), null, 'no Accept-Encoding: identity')
})

t.test('a language range matches its prefix, the highest q wins, and English is the default (RFC 9110 12.5.4)', async t => {
  t.equal(chooseLanguage('de-AT;q=0.9, fr;q=0.4'), 'de')
  t.equal(chooseLanguage('ja, fr;q=0.1'), 'fr')
  t.equal(chooseLanguage('ja'), 'en')
  t.equal(chooseLanguage(undefined), 'en')
})

t.test('x-gzip is gzip, a coding named outright keeps its own q whatever * says, and a q that is no qvalue counts for nothing', async t => {
  t.equal(negotiateEncoding('x-gzip', ['gzip']), 'gzip')
  t.equal(negotiateEncoding('gzip;q=0, *', ['gzip', 'br']), 'br', '* does not override gzip;q=0')
  t.equal(negotiateEncoding('br;q=0.2, *;q=0.5', ['br', 'deflate']), 'deflate')
  t.equal(negotiateEncoding('gzip;q=2, br;q=0.1', ['gzip', 'br']), 'br', 'q=2 is not a qvalue')
  t.equal(negotiateEncoding('GZIP;Q=0.5', ['gzip']), 'gzip', 'names and parameters are case-insensitive')
})

t.test('a language whose q is no qvalue is not chosen over a weighted one', async t => {
  t.equal(chooseLanguage('de;q=5, fr;q=0.5'), 'fr')
  t.equal(chooseLanguage('de;q=abc, fr;q=0.1'), 'fr')
})
