import t from 'tap'
import { join } from 'node:path'
import { crawl } from '../../../crawler/index.js'
import { PlanStore } from '../../../crawler/store/plan-store.js'
import { Store } from '../../../crawler/store/store.js'
import { startFixtureSite } from '../../../fixture-site/index.js'

// Change histories and estimates are kept per resource and Vary variant: a page
// served in French and in English is two representations with their own rates.

t.test('each Vary variant of a URL keeps its own change history and estimate', async t => {
  const site = await startFixtureSite(null, { port: 0 })
  t.teardown(() => site.close())
  const store = join(t.testdir(), 'plan.sqlite')
  const url = `${site.url}/vary/accept-language`
  const fr = { 'accept-language': 'fr' }
  const en = { 'accept-language': 'en' }
  await crawl({ urls: [url], store, plan: true, headers: fr })
  await crawl({ urls: [url], store, plan: true, headers: en })
  for (let day = 0; day < 2; day++) {
    site.clock.advance('1d')
    await crawl({ urls: [url], store, plan: true, headers: fr })
  }
  const s = Store.open(store)
  try {
    const french = s.find(url, fr)
    const english = s.find(url, en)
    if (french === null || english === null) throw new Error('a variant is not stored')
    t.not(french.id, english.id, 'two stored representations')
    t.equal(french.changeHistory?.observations.length, 3, 'the French variant was seen three times')
    t.equal(english.changeHistory?.observations.length, 1, 'the English one once')
    const plans = new PlanStore(s.connection)
    const frEstimate = plans.resource(french.id)?.estimate
    t.ok(frEstimate !== null && frEstimate !== undefined, 'the French variant has its estimate stored')
    t.equal(frEstimate?.observations, french.changeHistory?.observations.filter(o => o.intervalMs !== null || o.lastModifiedAgeMs !== undefined).length, 'from its own history')
  } finally {
    s.close()
  }
})
