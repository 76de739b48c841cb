import t from 'tap'
import { spawnSync } from 'node:child_process'
import { fromRoot } from '../../../common/paths.js'

const bin = fromRoot('dist/bin/webkrab.js')

t.test('an unknown flag exits 2 with one line saying which', async t => {
  const r = spawnSync(process.execPath, [bin, '--no-such-flag'], { encoding: 'utf8' })
  t.equal(r.status, 2)
  t.match(r.stderr, /unknown option '--no-such-flag'/)
})

t.test('--version prints the package version and exits 0', async t => {
  const r = spawnSync(process.execPath, [bin, '--version'], { encoding: 'utf8' })
  t.equal(r.status, 0)
  t.match(r.stdout.trim(), /^\d+\.\d+\.\d+$/)
})
