import t from 'tap'
import { chooseLanguage, negotiateEncoding } from '../../../fixture-server/index.js'

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
