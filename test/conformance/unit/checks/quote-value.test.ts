import t from 'tap'
import { quoteValue } from '../../../../conformance/checks/request-headers.js'

t.test('a verdict quotes a header value whole up to 160 characters, and cuts a longer one with its length', async t => {
  t.equal(quoteValue('"abc"'), '"abc"')
  const hundred = Array.from({ length: 100 }, (_, i) => `"tag-${i}"`).join(', ')
  const quoted = quoteValue(hundred)
  t.ok(quoted.length < 200, `${quoted.length} characters`)
  t.ok(quoted.startsWith(hundred.slice(0, 160)))
  t.match(quoted, new RegExp(`… \\(${hundred.length} characters\\)$`))
})
