import t from 'tap'
import fc from 'fast-check'
import { holds } from '../../property.js'
import { parseDuration, parseSize, formatDuration } from '../../../common/units.js'
import { isWebkrabError } from '../../../common/errors.js'

t.test('durations accept the units the contract names', async t => {
  t.equal(parseDuration('500ms'), 500)
  t.equal(parseDuration('30s'), 30_000)
  t.equal(parseDuration('10m'), 600_000)
  t.equal(parseDuration('1h'), 3_600_000)
  t.equal(parseDuration('1d'), 86_400_000)
  t.equal(parseDuration('1h30m'), 5_400_000)
  t.equal(parseDuration('1.5s'), 1500)
})

t.test('a duration without a unit, or with an unknown one, is bad input', async t => {
  for (const bad of ['5', '', 'soon', '5 minutes', '-1s', '5s5', 'ms']) {
    t.throws(() => parseDuration(bad), { code: 'WEBKRAB_ERR_BAD_DURATION' }, bad)
  }
  t.equal(parseDuration('5', 'x', 's'), 5000, 'a bare number is accepted when the caller names its unit')
})

t.test('sizes accept SI and binary units and plain bytes', async t => {
  t.equal(parseSize('512KiB'), 524_288)
  t.equal(parseSize('10MB'), 10_000_000)
  t.equal(parseSize('1234'), 1234)
  t.equal(parseSize('2GiB'), 2 * 1024 ** 3)
  for (const bad of ['', 'lots', '10 parsecs', '-5', '1e3']) {
    t.throws(() => parseSize(bad), { code: 'WEBKRAB_ERR_BAD_SIZE' }, bad)
  }
})

t.test('a plain byte count is whole: a fraction of a byte is bad input, a fraction of a unit is not', async t => {
  for (const bad of ['1.5', '0.5B', '2.25 b']) t.throws(() => parseSize(bad, '--max-body-bytes'), { code: 'WEBKRAB_ERR_BAD_SIZE', message: /--max-body-bytes: ".*" is a fraction of a byte/ }, bad)
  t.equal(parseSize('1.5KiB'), 1536)
  t.equal(parseSize('0.5MB'), 500_000)
})

t.test('formatDuration round-trips through parseDuration', async t => {
  holds(t, fc.property(fc.nat({ max: 10 ** 10 }), ms => parseDuration(formatDuration(ms)) === ms))
})

t.test('no string makes the unit parsers throw anything but a WebKrab input error', async t => {
  holds(t, fc.property(fc.string(), s => {
    for (const parse of [parseDuration, parseSize]) {
      try { parse(s) } catch (err) { if (!isWebkrabError(err) || err.exitCode !== 2) return false }
    }
    return true
  }))
})
