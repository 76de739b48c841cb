import t from 'tap'
import { LATEST_SCHEMA_VERSION } from '../../crawler/store/store-migrations.js'
import { join } from 'node:path'
import { badInputKit, type BadInputCase } from './bad-input-kit.js'

// Bad files to the real `webkrab` binary: stores that are not WebKrab stores or are newer
// than the code, site and scenario files that are not YAML or break their schema, reports
// that are not reports. Exit code 2, one line that says what and where (file, line and
// column; a JSON pointer; a store path), nothing on stdout, and no byte of a store changed.

const kit = await badInputKit(t)
const { url, good, foreign, newer, lying, unversioned, dir, file } = kit

const CASES: BadInputCase[] = [
  { what: 'a store that is a text file', args: ['crawl', url, '--store', file('important.txt')], line: /WEBKRAB_ERR_NOT_A_STORE: .*important\.txt is not an SQLite database/ },
  { what: 'a store of another application', args: ['crawl', url, '--store', foreign], line: /WEBKRAB_ERR_NOT_A_STORE: .*foreign\.sqlite is an SQLite database without WebKrab's meta table/ },
  { what: 'a store newer than the code', args: ['crawl', url, '--store', newer], line: new RegExp(`WEBKRAB_ERR_STORE_TOO_NEW: .*newer\\.sqlite has schema version ${LATEST_SCHEMA_VERSION + 1}`) },
  { what: 'a store whose schema_version says less than its tables are', args: ['crawl', url, '--store', lying], line: /WEBKRAB_ERR_NOT_A_STORE: .*lying\.sqlite: meta\.schema_version says 1, but it has a table \w+, which version 1 does not/ },
  { what: 'a store whose schema_version is empty', args: ['crawl', url, '--store', unversioned], line: /WEBKRAB_ERR_NOT_A_STORE: .*unversioned\.sqlite: meta\.schema_version is "", not a version number/ },
  { what: 'a store path that is a dangling symbolic link', args: ['crawl', url, '--store', join(dir, 'dangling.sqlite')], line: /WEBKRAB_ERR_FILE_NOT_FOUND: .*dangling\.sqlite is a symbolic link to \S*nowhere\.sqlite, which does not exist; a store is not created through a dangling link/ },
  { what: 'a URL list with a bad line, on a good store', args: ['crawl', '--store', good, '--urls-file', file('bad-urls.txt')], line: /WEBKRAB_ERR_BAD_URL: .*--urls-file \S*bad-urls\.txt:2: "not a url"/ },
  { what: 'a site file that is not YAML', args: ['serve', '--site', file('not-yaml.site.yaml')], line: /WEBKRAB_ERR_BAD_YAML: .*not-yaml\.site\.yaml:2:3: / },
  { what: 'a site file that breaks the schema', args: ['serve', '--site', file('bad-schema.site.yaml')], line: /WEBKRAB_ERR_BAD_SITE: .*bad-schema\.site\.yaml:2:11: origins\[0\]\.name "Main Origin" must be lower-case letters/ },
  { what: 'a site file with !!js/function', args: ['serve', '--site', file('js-function.site.yaml')], line: /WEBKRAB_ERR_BAD_YAML: .*js-function\.site\.yaml:5:22: the tag !!js\/function is not allowed/ },
  { what: 'a scenario file that is not YAML', args: ['conformance', '--scenarios', file('validators-not-yaml.yaml')], line: /WEBKRAB_ERR_BAD_YAML: .*validators-not-yaml\.yaml:\d+:\d+: / },
  { what: 'a scenario file that breaks the schema', args: ['conformance', '--scenarios', file('validators-bad-schema.yaml')], line: /WEBKRAB_ERR_BAD_SCENARIO: .*validators-bad-schema\.yaml:3:7: kind must be one of .*; 1 more problem:$/, listed: [/^ {2}\S*validators-bad-schema\.yaml:7:13: assertions must have at least 1 item \(rule #\/properties\/assertions\/minItems\)$/] },
  { what: 'a report that is not JSON', args: ['report', file('not-json.json')], line: /WEBKRAB_ERR_BAD_REPORT: .*not-json\.json: not JSON/ },
  { what: 'a report that is JSON but not a report', args: ['report', file('not-a-report.json')], line: /WEBKRAB_ERR_BAD_REPORT: .*not-a-report\.json: the document is missing the required field "\w+"/ },
  { what: 'a report path that is a folder', args: ['report', dir], line: /WEBKRAB_ERR_BAD_REPORT: .*cannot be read \(EISDIR\)/ }
]

t.test('bad stores, site files, scenario files and reports exit 2 with one line that says what and where, and print nothing else', async t => {
  await kit.checkCases(t, CASES)
})

t.test('nothing already stored was touched: every store file has the checksum it had', async t => {
  kit.checkUntouched(t)
})
