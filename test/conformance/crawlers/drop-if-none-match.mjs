// A deliberately broken crawler for the conformance tests: it stores validators
// but never sends If-None-Match (it only ever revalidates with If-Modified-Since).
// Usage: node drop-if-none-match.mjs STATE_DIR URL...
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

const [state, ...urls] = process.argv.slice(2)
const file = join(state, 'validators.json')
const stored = existsSync(file) ? JSON.parse(readFileSync(file, 'utf8')) : {}
const context = JSON.parse(process.env.WEBKRAB_HEADERS ?? '{}')
for (const url of urls) {
  const headers = { ...context }
  const lastModified = stored[url]?.lastModified
  if (lastModified) headers['if-modified-since'] = lastModified
  const res = await fetch(url, { headers, redirect: 'manual' })
  await res.arrayBuffer()
  if (res.status === 200) stored[url] = { etag: res.headers.get('etag'), lastModified: res.headers.get('last-modified') }
}
writeFileSync(file, JSON.stringify(stored))
