import t from 'tap'
import { Agent, request } from 'undici'
import { startFixtureSite, type JournalEntry } from '../../../fixture-site/index.js'

const site = await startFixtureSite()
// a short-fused client for the faults that only end when the client gives up, and a
// patient one for the slow paths, so a loaded machine does not turn slow into failed
const agent = new Agent({ headersTimeout: 400, bodyTimeout: 400 })
const patient = new Agent({ headersTimeout: 10_000, bodyTimeout: 10_000 })
t.teardown(async () => {
  await agent.close()
  await patient.close()
  await site.close()
})

/** Fetches a path; resolves with what arrived before the error, if any. */
async function fetchPath (path: string, dispatcher = agent): Promise<{ status?: number, bytes: number, error?: { code?: string, message: string } }> {
  let bytes = 0
  let status: number | undefined
  try {
    const r = await request(`${site.url}${path}`, { dispatcher })
    status = r.statusCode
    for await (const chunk of r.body) bytes += (chunk as Buffer).length
    return { status, bytes }
  } catch (err) {
    return { status, bytes, error: { code: (err as { code?: string }).code, message: (err as Error).message } }
  }
}

async function completedEntry (path: string): Promise<JournalEntry> {
  const [entry] = await site.journal.waitFor(1, { completed: true, filter: e => e.path === path })
  return entry
}

t.test('/slow/headers holds the response for at least the asked milliseconds', async t => {
  const r = await fetchPath('/slow/headers?ms=250', patient)
  t.equal(r.status, 200)
  const e = await completedEntry('/slow/headers')
  t.ok(e.completedMs !== null && e.completedMs - e.arrivedMs >= 245, `took ${String(e.completedMs !== null ? e.completedMs - e.arrivedMs : null)} ms`)
})

t.test('/slow/body trickles the whole body at the asked rate, never faster', async t => {
  const r = await fetchPath('/slow/body?bytes=1500&bps=5000', patient)
  t.equal(r.bytes, 1500)
  const e = await completedEntry('/slow/body')
  // three slices of 500 bytes, one every 100 ms
  t.ok(e.completedMs !== null && e.completedMs - e.arrivedMs >= 290)
  t.equal(e.bodyBytes, 1500)
  t.equal(e.cut, false)
})

t.test('/stall sends the first bytes and then nothing, so the client times out and the journal marks it cut', async t => {
  const r = await fetchPath('/stall?after=1000&bytes=5000')
  t.equal(r.status, 200)
  t.equal(r.error?.code, 'UND_ERR_BODY_TIMEOUT')
  t.equal(r.bytes, 1000)
  const e = await completedEntry('/stall')
  t.equal(e.bodyBytes, 1000)
  t.equal(e.cut, true)
  t.equal(e.responseHeaders['content-length'], '5000')
})

t.test('/reset sends the first bytes and then resets the connection', async t => {
  const r = await fetchPath('/reset?after=700')
  t.ok(r.error !== undefined, 'the client sees an error')
  t.ok(r.bytes <= 700)
  const e = await completedEntry('/reset')
  t.equal(e.status, 200)
  t.equal(e.bodyBytes, 700)
  t.equal(e.cut, true)
})

t.test('/lying-length promises more bytes than it sends, then closes', async t => {
  const r = await fetchPath('/lying-length?bytes=100&claim=1000')
  t.equal(r.error?.code, 'UND_ERR_SOCKET')
  const e = await completedEntry('/lying-length')
  t.equal(e.responseHeaders['content-length'], '1000')
  t.equal(e.bodyBytes, 100)
  t.equal(e.cut, true)
})

t.test('/broken-chunked breaks its chunked framing, which a client must reject', async t => {
  const r = await fetchPath('/broken-chunked')
  t.match(r.error?.message ?? '', /chunk/i)
  const e = await completedEntry('/broken-chunked')
  t.equal(e.responseHeaders['transfer-encoding'], 'chunked')
  t.equal(e.cut, true)
})

t.test('/hang is recorded at arrival, never answered, and completed as cut when the client leaves', async t => {
  const arrived = site.journal.waitFor(1, { filter: e => e.path === '/hang' })
  const r = fetchPath('/hang')
  const [entry] = await arrived
  t.equal(entry.completedMs, null)
  t.equal((await r).error?.code, 'UND_ERR_HEADERS_TIMEOUT')
  const e = await completedEntry('/hang')
  t.equal(e.status, null)
  t.equal(e.cut, true)
  t.equal(e.headerBytes, 0)
})

t.test('a HEAD of each fault path gets the head a GET would get, and no body', async t => {
  const head = async (path: string): Promise<{ status: number, headers: Record<string, unknown> }> => {
    // a fresh client each time: /reset resets the connection after the head
    const r = await request(`${site.url}${path}`, { method: 'HEAD', dispatcher: patient, reset: true })
    await r.body.dump()
    return { status: r.statusCode, headers: r.headers }
  }
  const slow = await head('/slow/headers?ms=150')
  t.equal(slow.status, 200)
  const late = await site.journal.waitFor(1, { completed: true, filter: e => e.method === 'HEAD' && e.path === '/slow/headers' })
  t.ok(late[0].completedMs !== null && late[0].completedMs - late[0].arrivedMs >= 145, 'a HEAD waits as long as a GET')
  t.equal((await head('/slow/body?bytes=5000&bps=10')).headers['content-length'], '5000', 'no body to trickle: the head at once')
  t.equal((await head('/stall?after=10&bytes=100')).headers['content-length'], '100')
  t.equal((await head('/reset?after=10')).status, 200, 'the head goes out before the reset')
  t.equal((await head('/lying-length?bytes=10&claim=500')).headers['content-length'], '500')
  t.equal((await head('/broken-chunked')).headers['transfer-encoding'], 'chunked')
  const entries = await site.journal.waitFor(6, { completed: true, filter: e => e.method === 'HEAD' })
  for (const e of entries) {
    t.equal(e.status, 200, `HEAD ${e.url} answered`)
    t.equal(e.bodyBytes, 0, `HEAD ${e.url} sent no body`)
  }
})

t.test('close() ends the site even while a connection hangs', async t => {
  const other = await startFixtureSite()
  const r = request(`${other.url}/hang`).catch((err: Error) => err)
  await other.journal.waitFor(1)
  await other.close()
  t.type(await r, Error)
})
