import t from 'tap'
import { judgeValidators, judgeLastModified, type ValidatorObservation } from '../../../../crawler/policy/validators.js'

const DATE = 'Thu, 01 Jan 2026 12:00:00 GMT'
const NOW = Date.parse('2026-01-01T12:00:00Z')

function seen (over: Partial<ValidatorObservation>): ValidatorObservation {
  return { status: 200, etag: null, lastModified: null, date: DATE, fallbackNowMs: NOW, digestStrict: 'sha256:aa', ...over }
}

t.test('an ETag that moves while the digest does not is churning, with the evidence', async t => {
  const j = judgeValidators({ etag: '"a"', lastModified: null, digestStrict: 'sha256:aa', etagChurning: false, qualityNote: null }, seen({ etag: '"b"' }))
  t.equal(j.quality, 'churning')
  t.equal(j.etagChurning, true)
  t.match(j.evidence, /ETag "a" then "b" with the same content/)
})

t.test('an ETag that moves with the content is not churning', async t => {
  const j = judgeValidators({ etag: '"a"', lastModified: null, digestStrict: 'sha256:aa', etagChurning: false, qualityNote: null }, seen({ etag: '"b"', digestStrict: 'sha256:bb' }))
  t.equal(j.quality, 'ok')
  t.equal(j.etagChurning, false)
})

t.test('a churning ETag stays churning across a 304, and clears when a download shows it stable', async t => {
  const prev = { etag: '"b"', lastModified: 'Mon, 22 Dec 2025 00:00:00 GMT', digestStrict: 'sha256:aa', etagChurning: true, qualityNote: null }
  t.equal(judgeValidators(prev, seen({ status: 304, etag: '"c"', lastModified: prev.lastModified })).etagChurning, true)
  const stable = judgeValidators(prev, seen({ etag: '"b"', lastModified: prev.lastModified }))
  t.equal(stable.etagChurning, false)
  t.equal(stable.quality, 'ok')
})

t.test('a Last-Modified later than Date is future-last-modified', async t => {
  const j = judgeValidators(null, seen({ lastModified: 'Fri, 02 Jan 2026 12:00:00 GMT' }))
  t.equal(j.quality, 'future-last-modified')
  t.match(j.evidence, /later than Date/)
})

t.test('a Last-Modified equal to Date is same-second', async t => {
  t.equal(judgeValidators(null, seen({ lastModified: DATE })).quality, 'same-second')
  const v = judgeLastModified(DATE, DATE, NOW)
  t.equal(v.usable, false)
})

t.test('no ETag and no Last-Modified is absent', async t => {
  const j = judgeValidators(null, seen({}))
  t.equal(j.quality, 'absent')
  t.equal(j.strength, null)
})

t.test('a Last-Modified that moves while the content does not is noted as a template rewrite', async t => {
  const prev = { etag: null, lastModified: 'Wed, 31 Dec 2025 00:00:00 GMT', digestStrict: 'sha256:aa', etagChurning: false, qualityNote: null }
  const j = judgeValidators(prev, seen({ lastModified: 'Thu, 01 Jan 2026 00:00:00 GMT' }))
  t.equal(j.quality, 'ok')
  t.match(j.note, /moved from Wed, 31 Dec 2025 00:00:00 GMT to Thu, 01 Jan 2026 00:00:00 GMT while the content did not change/)
  const changed = judgeValidators(prev, seen({ lastModified: 'Thu, 01 Jan 2026 00:00:00 GMT', digestStrict: 'sha256:bb' }))
  t.equal(changed.note, null, 'a Last-Modified that moves with the content is what it is for')
})

t.test('strength: W/ is weak, a quoted tag strong, an honest Last-Modified alone strong', async t => {
  t.equal(judgeValidators(null, seen({ etag: 'W/"x"' })).strength, 'weak')
  t.equal(judgeValidators(null, seen({ etag: '"x"' })).strength, 'strong')
  t.equal(judgeValidators(null, seen({ lastModified: 'Mon, 22 Dec 2025 00:00:00 GMT' })).strength, 'strong')
})

t.test('without a Date, Last-Modified is judged against the time given, not the local clock', async t => {
  const v = judgeLastModified('Thu, 01 Jan 2026 12:00:05 GMT', null, NOW)
  t.equal(v.usable, false, 'five seconds after the given time is in the future')
})
