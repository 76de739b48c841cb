import t from 'tap'
import { requestProblem } from '../../../../crawler/fetch/request-fields.js'

// The check every request passes before it is handed to undici. A frozen map of fields found
// sound (the run's own, sent with every request that adds none) is checked once; every other
// map, and every request target, is checked each time.

t.test('a frozen map of sound fields passes, and is not read again', async t => {
  let reads = 0
  const values = { accept: '*/*', 'user-agent': 'webkrab-test' }
  const counted = new Proxy(values, { get: (target, name) => { reads++; return Reflect.get(target, name) } })
  const fields = Object.freeze(counted)
  t.equal(requestProblem('/a', fields), null)
  const first = reads
  t.ok(first > 0, 'read the first time')
  t.equal(requestProblem('/b', fields), null)
  t.equal(reads, first, 'not read the second time')
  t.match(requestProblem('/a b', fields), /request target "\/a b"/, 'the target is still checked')
})

t.test('a frozen map with a field that may not be sent is refused every time', async t => {
  const bad = Object.freeze({ 'if-none-match': '"a\r\nx: y"' })
  t.match(requestProblem('/', bad), /CR/)
  t.match(requestProblem('/', bad), /CR/, 'refused again: a refusal is not remembered as sound')
})

t.test('a map that can change is checked every time', async t => {
  const fields: Record<string, string> = { accept: '*/*' }
  t.equal(requestProblem('/', fields), null)
  fields.accept = 'text/html\n'
  t.match(requestProblem('/', fields), /LF/, 'changed after it passed, refused')
  let calls = 0
  const computed = Object.freeze(Object.defineProperty({}, 'accept', { enumerable: true, get: () => ++calls > 1 ? 'x\u0000' : '*/*' }))
  t.equal(requestProblem('/', computed), null)
  t.match(requestProblem('/', computed), /NUL/, 'frozen, but a value computed when read is read again')
})
