import type { RefusedStreamsAssertion } from '../scenario-types.js'
import type { Seen } from '../site-driver.js'
import { fail, pass, plural, untested, type CheckResult, type GradeContext } from './check-types.js'

/**
 * `refused_streams`: how many HTTP/2 streams the server refused before its site
 * saw them. A client opens its streams with ids that go up by two from 1 (RFC 9113
 * section 5.1.1), and the journal records each request's stream id; a stream the
 * server's HTTP/2 layer refuses (REFUSED_STREAM, for one beyond its
 * SETTINGS_MAX_CONCURRENT_STREAMS) never reaches the site, so it is an id missing
 * on its connection between the ones that did, or before the first. A client that
 * skipped ids on purpose would read as refused: none graded does.
 */
export function checkRefusedStreams (spec: RefusedStreamsAssertion['refused_streams'], ctx: GradeContext): CheckResult {
  const steps = spec.step === undefined ? null : Array.isArray(spec.step) ? spec.step : [spec.step]
  const over = [...ctx.seen, ...(ctx.ownSeen ?? [])].filter(s => s.h2Stream !== undefined && (spec.origin === undefined || s.origin === spec.origin) && (steps === null || steps.includes(s.step)))
  const where = spec.origin !== undefined ? ` on origin ${spec.origin}` : ''
  if (over.length === 0) return untested(`no request came over HTTP/2${where}: the crawler did not speak it, so no stream could be refused`)
  const byConnection = new Map<string, Seen[]>()
  for (const s of over) byConnection.set(s.connectionId, [...(byConnection.get(s.connectionId) ?? []), s])
  let refused = 0
  const missing: string[] = []
  for (const [connection, seen] of byConnection) {
    const ids = seen.map(s => s.h2Stream as number).sort((a, b) => a - b)
    let expected = 1
    for (const id of ids) {
      if (id > expected) {
        const n = (id - expected) / 2
        refused += n
        missing.push(`#${connection}: ${n === 1 ? `stream ${expected}` : `streams ${expected}-${id - 2}`}`)
      }
      expected = Math.max(expected, id + 2)
    }
  }
  const streams = `${plural(over.length, 'stream')} reached the site over ${plural(byConnection.size, 'connection')}${where}`
  if (refused > spec.at_most) {
    return fail(`expected at most ${spec.at_most} refused; the server refused ${plural(refused, 'stream')} before the site saw them (connection ${missing.join('; ')}), while ${streams}`)
  }
  return pass(`${streams}; ${refused === 0 ? 'none was refused' : `${plural(refused, 'stream')} refused, within ${spec.at_most}`}`)
}
