import t from 'tap'
import { readFileSync } from 'node:fs'
import { relative } from 'node:path'
import { fromRoot, packageRoot } from '../../../../common/paths.js'
import { ADAPTER_SCHEMA_PATH } from '../../../../conformance/adapters/load-adapter.js'
import { SCENARIO_SCHEMA_PATH, SCENARIOS_DIR } from '../../../../conformance/load-scenarios.js'
import { RULES_PATH, RULES_SCHEMA_PATH } from '../../../../conformance/rules.js'

t.test('the package ships every file the harness reads at run time: scenarios, schemas, the rules catalogue and the adapters', async t => {
  const pkg = JSON.parse(readFileSync(fromRoot('package.json'), 'utf8')) as { files: string[] }
  const shipped = (file: string): boolean => {
    const rel = relative(packageRoot, file)
    // an entry is a path, a folder, or a folder with a `*.ext` pattern (what npm's "files" globs here use)
    const glob = (entry: string): RegExp => new RegExp('^' + entry.split('*').map(p => p.replace(/[.+?^${}()|[\]\\]/g, '\\$&')).join('[^/]*') + '$')
    return pkg.files.some(entry => !entry.startsWith('!') && (rel === entry || rel.startsWith(`${entry}/`) || (entry.includes('*') && glob(entry).test(rel))))
  }
  for (const file of [SCENARIOS_DIR, SCENARIO_SCHEMA_PATH, ADAPTER_SCHEMA_PATH, RULES_PATH, RULES_SCHEMA_PATH,
    fromRoot('conformance', 'adapters', 'curl.yaml'), fromRoot('conformance', 'adapters', 'curl-crawl.mjs'),
    fromRoot('conformance', 'adapters', 'adapter-env.mjs')]) {
    t.ok(shipped(file), `${relative(packageRoot, file)} is in package.json "files"`)
  }
})
