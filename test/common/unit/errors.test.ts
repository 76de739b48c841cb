import t from 'tap'
import { readFileSync } from 'node:fs'
import { errors, WebkrabError } from '../../../common/errors.js'
import { fromRoot } from '../../../common/paths.js'

const readme = readFileSync(fromRoot('docs', 'errors.md'), 'utf8')

t.test('every error code is documented in the error table of docs/errors.md, with its kind and exit code', async t => {
  for (const [code, factory] of Object.entries(errors)) {
    const row = new RegExp('^\\|\\s*`' + code + '`\\s*\\|\\s*(\\w+)\\s*\\|\\s*(\\d+)\\s*\\|\\s*\\S', 'm').exec(readme)
    if (row === null) {
      t.fail(`${code} is listed`)
      continue
    }
    t.equal(row[1], factory.spec.kind, `${code}: docs/errors.md gives its kind`)
    t.equal(Number(row[2]), factory.spec.exitCode, `${code}: docs/errors.md gives its exit code`)
  }
})

t.test('docs/errors.md lists no error code the registry lacks', async t => {
  const listed = [...readme.matchAll(/`(WEBKRAB_ERR_[A-Z_]+)`/g)].map(m => m[1])
  for (const code of listed) t.ok(code in errors, `${code} exists in common/errors.ts`)
})

t.test('each code names itself, and input errors exit 2 while others exit 1', async t => {
  for (const [name, factory] of Object.entries(errors)) {
    const err = factory('detail')
    t.ok(err instanceof WebkrabError)
    t.equal(err.code, name)
    t.equal(err.exitCode, err.kind === 'input' ? 2 : 1, name)
    t.match(err.message, /detail$/)
  }
})

t.test('a wrapped error keeps its cause', async t => {
  const cause = new Error('socket hang up')
  const err = errors.WEBKRAB_ERR_CONNECTION('http://127.0.0.1:1/', { cause })
  t.equal(err.cause, cause)
})
