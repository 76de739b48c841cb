import t from 'tap'
import { readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { badInputKit, type BadInputCase } from './bad-input-kit.js'

// Bad flags, durations, sizes and URLs to the real `webkrab` binary, command by command:
// exit code 2 and one line on stderr saying what is wrong and where, nothing on stdout,
// and no byte of a store already on disk changed. Bad files: bad-files.test.ts.

const kit = await badInputKit(t)
const { url, good, dir, file } = kit
// inputs an output path may name by another spelling: a symlink to the store, a URL list, an importance file
const storeLink = join(dir, 'report-link.json')
symlinkSync(good, storeLink)
const urlList = join(dir, 'urls.txt')
writeFileSync(urlList, `${url}\n`)
const weights = join(dir, 'weights.yaml')
writeFileSync(weights, `${url}: 2\n`)

const CASES: BadInputCase[] = [
  { what: 'an unknown crawl flag', args: ['crawl', url, '--store', good, '--no-such-flag'], line: /WEBKRAB_ERR_BAD_FLAG: crawl: unknown option '--no-such-flag'/ },
  { what: 'an unknown serve flag', args: ['serve', '--prot', '8080'], line: /WEBKRAB_ERR_BAD_FLAG: serve: unknown option '--prot'/ },
  { what: 'an unknown conformance flag', args: ['conformance', '--scenario', file('validators-not-yaml.yaml')], line: /WEBKRAB_ERR_BAD_FLAG: conformance: unknown option '--scenario'/ },
  { what: 'an unknown report flag', args: ['report', file('not-json.json'), '--formt', 'md'], line: /WEBKRAB_ERR_BAD_FLAG: report: unknown option '--formt'/ },
  { what: 'an unknown bench flag', args: ['bench', 'server', '--connection', '5'], line: /WEBKRAB_ERR_BAD_FLAG: bench server: unknown option '--connection'/ },
  { what: 'a bench duration that is not one', args: ['bench', 'server', '--duration', 'soon'], line: /WEBKRAB_ERR_BAD_DURATION: .*--duration: "soon"/ },
  { what: 'a duration without a unit', args: ['crawl', url, '--store', good, '--max-duration', '5'], line: /WEBKRAB_ERR_BAD_DURATION: .*--max-duration: "5"/ },
  { what: 'a negative duration', args: ['crawl', url, '--store', good, '--response-timeout', '-5s'], line: /WEBKRAB_ERR_BAD_DURATION: .*--response-timeout: "-5s"/ },
  { what: 'a size with an unknown unit', args: ['crawl', url, '--store', good, '--max-bytes', '10XB'], line: /WEBKRAB_ERR_BAD_SIZE: .*--max-bytes: "10XB"/ },
  { what: 'a fractional byte count', args: ['crawl', url, '--store', good, '--max-body-bytes', '1.5'], line: /WEBKRAB_ERR_BAD_SIZE: .*--max-body-bytes: "1\.5" is a fraction of a byte/ },
  { what: 'an ftp URL', args: ['crawl', 'ftp://127.0.0.1/file', '--store', good], line: /WEBKRAB_ERR_BAD_URL: .*"ftp:\/\/127\.0\.0\.1\/file" uses ftp:/ },
  { what: 'a URL with credentials', args: ['crawl', 'http://ada:secret@127.0.0.1/', '--store', good], line: /WEBKRAB_ERR_BAD_URL: .*carries credentials; the crawler never sends any/ },
  { what: 'a URL that is not one', args: ['crawl', 'not a url', '--store', good], line: /WEBKRAB_ERR_BAD_URL: .*"not a url"/ },
  { what: 'a scope that is not an http(s) origin', args: ['crawl', url, '--store', good, '--scope', 'file:///etc'], line: /WEBKRAB_ERR_BAD_FLAG: .*--scope "file:\/\/\/etc" is not an http\(s\) origin/ },
  { what: 'a credential as request context', args: ['crawl', url, '--store', good, '--header', 'Cookie: session=1'], line: /WEBKRAB_ERR_BAD_FLAG: .*header Cookie cannot be set: the crawler never sends credentials/ },
  { what: 'a report path that is a folder', args: ['crawl', url, '--store', good, '--report', dir], line: /WEBKRAB_ERR_BAD_FLAG: .*--report .* is a folder, not a file/ },
  { what: 'a report path under a file', args: ['crawl', url, '--store', good, '--report', join(dir, 'important.txt', 'report.json')], line: /WEBKRAB_ERR_BAD_FLAG: .*important\.txt is a file, so no report can be written under it/ },
  { what: 'a report onto the store', args: ['crawl', url, '--store', good, '--report', good], line: /WEBKRAB_ERR_BAD_FLAG: .*--report .*good\.sqlite is --store .*good\.sqlite: writing it there would destroy that file; give --report another path/ },
  { what: 'a report onto the store by another spelling', args: ['crawl', url, '--store', good, '--report', './good.sqlite'], line: /WEBKRAB_ERR_BAD_FLAG: .*--report \.\/good\.sqlite is --store / },
  { what: 'a report onto a symlink to the store', args: ['crawl', url, '--store', good, '--report', storeLink], line: /WEBKRAB_ERR_BAD_FLAG: .*--report .*report-link\.json is --store / },
  { what: 'a report onto the store\'s write-ahead log', args: ['crawl', url, '--store', good, '--report', `${good}-wal`], line: /WEBKRAB_ERR_BAD_FLAG: .*--report .*good\.sqlite-wal is --store's wal file/ },
  { what: 'a report onto a store not made yet', args: ['crawl', url, '--store', join(dir, 'fresh.sqlite'), '--report', join(dir, '.', 'fresh.sqlite')], line: /WEBKRAB_ERR_BAD_FLAG: .*fresh\.sqlite is --store / },
  { what: 'a report onto the URL list', args: ['crawl', '--urls-file', urlList, '--store', good, '--report', urlList], line: /WEBKRAB_ERR_BAD_FLAG: .*--report .*urls\.txt is --urls-file / },
  { what: 'a report onto the importance file', args: ['crawl', url, '--store', good, '--plan', '--importance', weights, '--report', weights], line: /WEBKRAB_ERR_BAD_FLAG: .*--report .*weights\.yaml is --importance / },
  { what: 'a rendering onto the report it renders', args: ['report', file('not-json.json'), '--format', 'md', '--out', file('not-json.json')], line: /WEBKRAB_ERR_BAD_FLAG: .*--out .*not-json\.json is the report .*not-json\.json: writing it there would destroy that file/ },
  { what: 'a port out of range', args: ['serve', '--port', '99999'], line: /WEBKRAB_ERR_BAD_FLAG: .*--port must be an integer 0\.\.65535, not "99999"/ }
]

t.test('bad flags, durations, sizes and URLs exit 2 with one line that says what and where, and print nothing else', async t => {
  await kit.checkCases(t, CASES)
})

t.test('nothing already stored was touched: every store file has the checksum it had', async t => {
  kit.checkUntouched(t)
  t.equal(readFileSync(urlList, 'utf8'), `${url}\n`, 'the URL list a report would have overwritten is as it was')
  t.equal(readFileSync(weights, 'utf8'), `${url}: 2\n`, 'and the importance file')
})
