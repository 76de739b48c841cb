import t from 'tap'
import { runSoak, SOAK_PATHS } from '../../bench/soak.js'

/**
 * The fixture site under load, shortened from `webkrab bench server --soak` (200
 * connections for 30 s): the same 200 connections for 8,000 requests (a count, not a
 * duration, so that a busy machine does the same work, only slower), with a small
 * journal ring so that it fills and drops entries early, and a client that waits 30 s
 * for an answer before it calls it a timeout (the test is of what the site answers, on
 * a machine that may be busy; `bench server --soak` keeps autocannon's 10 s). tap runs
 * this file alone (package.json: serial). The site, its journal and
 * its HTTP servers' own counts live in this process; autocannon runs in a child.
 */
t.test('200 connections of mixed catalogue paths: only the errors the paths exist for, every request journalled, memory flat', async t => {
  // a ring of 1,000 fills early, so 7,000 requests run at steady state; the heap may grow by
  // 4 MiB at most over them (a leak of 600 bytes a request would show), the soak's 16 MiB
  // being for its 30 s at full speed
  const r = await runSoak({ connections: 200, amount: 8000, journalSize: 1000, timeoutSeconds: 30, maxHeapGrowthMiB: 4 })
  t.comment(r.checks.map(c => `${c.pass ? 'pass' : 'FAIL'} ${c.name}: ${c.detail}`).join('\n'))

  // no errors but those the paths exist to produce
  t.equal(r.client.errors, 0, 'no connection failed')
  t.equal(r.client.timeouts, 0, 'no request timed out')
  t.same(r.unexpected, [], 'every response has a status its path answers with')
  for (const status of [429, 503, 401, 404, 304]) t.ok((r.client.statusCounts[status] ?? 0) > 0, `the error and conditional paths answered ${status}`)
  t.ok(r.served.received >= 8000, `the whole load reached the site (${r.served.received} requests)`)
  t.equal(Object.keys(r.served.byPath).length, new Set(SOAK_PATHS.map(p => p.path)).size, 'every path of the mix was asked')

  // the journal's count equals the requests served; the ring's dropped count says what it let go
  t.equal(r.journal.recorded, r.served.received, 'one journal entry per request the servers received')
  t.ok(r.journal.dropped > 0, 'the ring filled and let entries go')
  t.equal(r.journal.kept, r.journal.size, 'a full ring keeps exactly its size')
  t.equal(r.journal.kept + r.journal.dropped, r.journal.recorded + 1, 'kept plus dropped is every entry recorded (one before the load)')
  t.equal(r.journal.incomplete, 0, 'every kept entry was completed')
  t.equal(r.journal.statusMismatches, 0, 'every kept entry that was answered has a status its path answers with')
  t.ok(r.journal.abandoned <= r.served.received - r.client.answered, `only requests in flight when the client stopped went unanswered (${r.journal.abandoned})`)
  t.ok(r.client.answered <= r.served.received && r.served.received - r.client.answered <= 200, 'the client read every response but those in flight when it stopped')

  // memory flat: heap after a full GC once the ring was full, against the end
  t.ok(r.memory.heapMiB.end - r.memory.heapMiB.ringFull <= 4, `heap ${r.memory.heapMiB.ringFull} MiB -> ${r.memory.heapMiB.end} MiB`)
  t.ok(r.pass, 'every check of the soak passed')
})
