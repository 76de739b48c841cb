import t from 'tap'
import { constants } from 'node:http2'
import type { FastifyReply, FastifyRequest } from 'fastify'
import { applyH2Fault, refusedAfterGoaway } from '../../../fixture-site/tls/h2-faults.js'

// After a GOAWAY, a stream above the last stream id it named is refused before the site
// has it: the server said it would not be processed (RFC 9113 section 8.7), and a stream
// already on the wire as the frame went out must not be processed after all.

function h2Request (id: number, session: object): { request: FastifyRequest, reply: FastifyReply, closed: number[], hijacked: () => boolean } {
  const closed: number[] = []
  let hijacked = false
  const stream = { id, session, close: (code: number) => { closed.push(code) } }
  const request = { raw: { httpVersionMajor: 2, stream } } as unknown as FastifyRequest
  const reply = { hijack: () => { hijacked = true } } as unknown as FastifyReply
  return { request, reply, closed, hijacked: () => hijacked }
}

t.test('a stream above the GOAWAY\'s last stream id is refused unprocessed; one at or below it is the site\'s', async t => {
  const sent: Array<[number, number]> = []
  const session = { state: { lastProcStreamID: 5 }, goaway: (code: number, last: number) => { sent.push([code, last]) } }
  const drain = h2Request(3, session)
  t.equal(applyH2Fault(drain.request, drain.reply, 'goaway'), false, 'the GOAWAY stream is answered by its route')
  t.same(sent, [[constants.NGHTTP2_NO_ERROR, 5]], 'GOAWAY names the highest stream the server has taken in, not only its own')
  for (const id of [1, 3, 5]) {
    const r = h2Request(id, session)
    t.equal(refusedAfterGoaway(r.request, r.reply), false, `stream ${id} was taken in: the site answers it`)
    t.same(r.closed, [])
  }
  const late = h2Request(7, session)
  t.equal(refusedAfterGoaway(late.request, late.reply), true, 'stream 7 came after: refused')
  t.same(late.closed, [constants.NGHTTP2_REFUSED_STREAM], 'with REFUSED_STREAM, which says it was not processed')
  t.ok(late.hijacked(), 'and nothing else answers it')
  const other = h2Request(7, { state: { lastProcStreamID: 9 }, goaway: () => {} })
  t.equal(refusedAfterGoaway(other.request, other.reply), false, 'a connection that sent no GOAWAY refuses nothing')
})

t.test('a stream Node.js hands over after its HTTP/2 layer refused it (closed as the GOAWAY went out) is refused: the site never had it', async t => {
  const stream = { id: 5, session: undefined, destroyed: true, rstCode: constants.NGHTTP2_REFUSED_STREAM, close: () => { t.fail('a closed stream is not closed again') } }
  let hijacked = false
  const reply = { hijack: () => { hijacked = true } } as unknown as FastifyReply
  t.equal(refusedAfterGoaway({ raw: { httpVersionMajor: 2, stream } } as unknown as FastifyRequest, reply), true)
  t.ok(hijacked, 'nothing answers it, and the journal does not record it')
  const cancelled = { ...stream, rstCode: constants.NGHTTP2_CANCEL }
  t.equal(refusedAfterGoaway({ raw: { httpVersionMajor: 2, stream: cancelled } } as unknown as FastifyRequest, { hijack: () => {} } as unknown as FastifyReply), false, 'one the client cancelled itself reached the server: the journal has it, cut')
})

