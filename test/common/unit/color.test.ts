import t from 'tap'
import { wantsColor } from '../../../common/terminal/color.js'

t.test('one colour rule for every command: FORCE_COLOR, then NO_COLOR, then a terminal that is not dumb', async t => {
  t.equal(wantsColor({ isTTY: true }, {}), true)
  t.equal(wantsColor({ isTTY: false }, {}), false, 'piped')
  t.equal(wantsColor({ isTTY: true }, { TERM: 'dumb' }), false)
  t.equal(wantsColor({ isTTY: true }, { NO_COLOR: '1' }), false)
  t.equal(wantsColor({ isTTY: true }, { NO_COLOR: '' }), true, 'an empty NO_COLOR is unset (no-color.org)')
  t.equal(wantsColor({ isTTY: false }, { FORCE_COLOR: '1' }), true)
  t.equal(wantsColor({ isTTY: true }, { FORCE_COLOR: '0' }), true, 'FORCE_COLOR=0 forces nothing')
  t.equal(wantsColor({ isTTY: false }, { FORCE_COLOR: '', NO_COLOR: '1' }), false, 'an empty FORCE_COLOR forces nothing')
  t.equal(wantsColor({ isTTY: false }, { FORCE_COLOR: '1', NO_COLOR: '1' }), true, 'the forcing wins')
})
