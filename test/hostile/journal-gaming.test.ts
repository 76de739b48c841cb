import t from 'tap'
import net from 'node:net'
import { startFixtureSite } from '../../fixture-server/index.js'
import { checkNoRequests } from '../../conformance/checks/request-counts.js'
import type { Seen } from '../../conformance/site-driver.js'

// A crawler under test cannot hide a request from the journal by how it writes it.

/** Sends raw request lines on one connection and waits for the server to close it. */
async function send (port: number, host: string, targets: string[]): Promise<string[]> {
  return await new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.write(targets.map((target, i) => `GET ${target} HTTP/1.1\r\nHost: ${host}\r\n${i === targets.length - 1 ? 'Connection: close\r\n' : ''}\r\n`).join(''))
    })
    let data = ''
    socket.on('data', chunk => { data += String(chunk) })
    socket.on('error', reject)
    socket.on('end', () => { resolve(data.split('\r\n').filter(l => l.startsWith('HTTP/1.1 '))) })
  })
}

t.test('a request in absolute-form is journalled by its origin-form path, with the raw target beside it, and an absence check sees it', async t => {
  const site = await startFixtureSite(undefined, { port: 0 })
  t.teardown(async () => { await site.close() })
  const { host, port } = new URL(site.url)
  const lines: string[] = []
  for (const target of [`http://${host}/private/x?y=1`, `HTTP://${host}`, `http://${host}/_webkrab/journal`, '/validators/strong']) lines.push(...await send(Number(port), host, [target]))
  t.equal(lines.length, 4, `every request was answered: ${lines.join(' / ')}`)
  const entries = site.journal.since(0)
  t.same(entries.map(e => [e.path, e.query, e.url, e.rawTarget]), [
    ['/private/x', 'y=1', '/private/x?y=1', `http://${host}/private/x?y=1`],
    ['/', '', '/', `HTTP://${host}`],
    ['/validators/strong', '', '/validators/strong', undefined]
  ], 'origin-form paths; the admin path stays out of the journal however it is written')
  const seen = entries.map(e => ({ ...e, step: 1, target: e.url, responseHeaders: {}, arrivedAt: 0, completedAt: 0, connectionId: String(e.connectionId) })) as unknown as Seen[]
  const verdict = checkNoRequests({ path: '/private/x' }, { seen, steps: [], runs: [], origins: [], writesReports: false })
  t.equal(verdict.status, 'fail', 'no_requests: /private/x is not slipped past by a whole URL as the target')
})
