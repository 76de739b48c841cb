import type { RefusedStreamsAssertion } from '../scenario-types.js'
import type { Seen } from '../site-driver.js'
import { fail, pass, plural, untested, type CheckResult, type GradeContext } from './check-types.js'

/**
 * `refused_streams`: how many HTTP/2 streams the client opened that never reached
 * the site. A stream the server's HTTP/2 layer refuses (REFUSED_STREAM, for one beyond
 * its SETTINGS_MAX_CONCURRENT_STREAMS) is never seen by the site; the fixture site
 * counts the streams each connection's client opened from its frames
 * (`h2StreamsOpened`, final on the connection's last request), so the refused are
 * those opened less those journalled. Where a journal has no count, stream ids
 * missing between the journalled ones (client ids go up by two from 1, RFC 9113
 * section 5.1.1) are counted instead, which misses a refusal after the last one.
 */
export function checkRefusedStreams (spec: RefusedStreamsAssertion['refused_streams'], ctx: GradeContext): CheckResult {
  const steps = spec.step === undefined ? null : Array.isArray(spec.step) ? spec.step : [spec.step]
  const over = [...ctx.seen, ...(ctx.ownSeen ?? [])].filter(s => s.h2Stream !== undefined && (spec.origin === undefined || s.origin === spec.origin) && (steps === null || steps.includes(s.step)))
  const where = spec.origin !== undefined ? ` on origin ${spec.origin}` : ''
  if (over.length === 0) return untested(`no request came over HTTP/2${where}: the crawler did not speak it, so no stream could be refused`)
  const byConnection = new Map<string, Seen[]>()
  for (const s of over) byConnection.set(s.connectionId, [...(byConnection.get(s.connectionId) ?? []), s])
  let refused = 0
  const found: string[] = []
  for (const [connection, seen] of byConnection) {
    const ids = seen.map(s => s.h2Stream as number).sort((a, b) => a - b)
    let gaps = 0
    let expected = 1
    for (const id of ids) {
      if (id > expected) gaps += (id - expected) / 2
      expected = Math.max(expected, id + 2)
    }
    const counted = seen.map(s => s.h2StreamsOpened).filter((n): n is number => n !== undefined)
    const opened = counted.length > 0 ? Math.max(...counted) : null
    const lost = Math.max(gaps, opened === null ? 0 : opened - ids.length)
    if (lost > 0) {
      refused += lost
      found.push(`#${connection}: ${opened === null ? `${lost} stream ids missing` : `opened ${opened}, ${ids.length} reached the site`}`)
    }
  }
  const streams = `${plural(over.length, 'stream')} reached the site over ${plural(byConnection.size, 'connection')}${where}`
  if (refused > spec.at_most) {
    return fail(`expected at most ${spec.at_most} refused; ${plural(refused, 'stream')} the crawler opened never reached the site, refused by the server's HTTP/2 layer (connection ${found.join('; ')}), while ${streams}`)
  }
  return pass(`${streams}; ${refused === 0 ? 'every stream the crawler opened reached it' : `${plural(refused, 'stream')} refused, within ${spec.at_most}`}`)
}
