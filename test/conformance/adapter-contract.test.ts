import t from 'tap'
import { readFileSync } from 'node:fs'
import { fromRoot } from '../../common/paths.js'
import { commandAdapter } from '../../conformance/adapters/command-adapter.js'
import { parseAdapterFile } from '../../conformance/adapters/load-adapter.js'
import { referenceAdapter } from '../../conformance/adapters/reference-adapter.js'
import { adapterContract } from './adapter-contract.js'

// The same contract, for each kind of adapter the harness has.
t.test('the reference crawler in-process', async t => {
  adapterContract(t, referenceAdapter, { writesReports: true })
})

t.test('a command adapter running `webkrab crawl` once per step with {urls}, {options} and {headers}', async t => {
  const bin = fromRoot('dist/bin/webkrab.js')
  adapterContract(t, () => commandAdapter({
    name: 'webkrab-cli',
    command: `node ${bin} crawl {urls} --store {state}/store.sqlite --report {state}/report-{step}.json {options} {headers}`
  }), { writesReports: true, clockByFaketime: true })
})

t.test('the curl adapter file, once per step with its URLs in WEBKRAB_URLS', async t => {
  const file = fromRoot('conformance/adapters/curl.yaml')
  adapterContract(t, () => parseAdapterFile(readFileSync(file, 'utf8'), file), { writesReports: false, tools: ['curl'], clockByFaketime: true })
})
