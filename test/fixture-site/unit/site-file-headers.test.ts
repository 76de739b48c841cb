import t from 'tap'
import { buildFixtureSite, parseSiteYaml } from '../../../fixture-site/index.js'

function siteError (text: string): string {
  try {
    parseSiteYaml(text, 'site.yaml')
  } catch (err) {
    return (err as Error).message
  }
  throw new Error('expected the site file to be rejected')
}

t.test('a header value Node would refuse at serve time is refused at load, with file:line:col and what is wrong', async t => {
  t.match(siteError('routes:\n  - path: /x\n    cacheControl: "max-age=1\\r\\nSet-Cookie: a=b"\n'), /site\.yaml:3:19: the cache-control field value .* has a line break \(CR or LF\), which would end the field/)
  t.match(siteError('routes:\n  - path: /x\n    headers: { x-name: café }\n'), /site\.yaml:3:24: the x-name field value "café" has "é", which is not ASCII/)
  t.match(siteError('routes:\n  - path: /x\n    contentType: "text/html\\u0000"\n'), /site\.yaml:3:18: the content-type field value .* has the control character U\+0000/)
  t.match(siteError('routes:\n  - path: /x\n    headers: { "bad name": x }\n'), /site\.yaml:3:16: routes\[0\]\.headers has the field name "bad name", which is not a header field name: a token .*\(RFC 9110 5\.1\)/)
  t.match(siteError('routes:\n  - path: /x\n    sequence:\n      - { status: 429, headers: { x-why: "a\\nb" } }\n'), /site\.yaml:4:\d+: the x-why field value "a\\nb" has a line break/)
  t.match(siteError('routes:\n  - path: /x\n    redirect: { to: "/y\\r\\nx: 1" }\n'), /site\.yaml:3:21: the location field value/)
  t.throws(() => buildFixtureSite({ routes: [{ path: '/x', headers: { 'x-a': 'ça' } }] }), { code: 'WEBKRAB_ERR_BAD_SITE', message: /site definition at \/routes\/0\/headers\/x-a: the x-a field value "ça"/ }, 'a definition made in code gets the same check')
  t.doesNotThrow(() => parseSiteYaml('routes:\n  - path: /x\n    headers: { x-name: "caf%C3%A9", link: "</a>; rel=\\"next\\"\\tx" }\n', 'site.yaml'), 'visible ASCII and tabs pass')
})

t.test('a 304 on a site route carries no Content-Type or Content-Length of another body (RFC 9110 15.4.5)', async t => {
  const site = buildFixtureSite({
    routes: [
      { path: '/typed', body: { type: 'json', size: 300 }, contentType: 'application/vnd.x+json', headers: { 'content-language': 'en', 'x-kept': 'yes' }, cacheControl: 'max-age=60' },
      { path: '/always-304', status: 304 },
      { path: '/stepped', sequence: [{ status: 304, headers: { 'content-length': '99' } }] }
    ]
  })
  t.teardown(() => site.close())
  const first = await site.app.inject('/typed')
  t.equal(first.headers['content-type'], 'application/vnd.x+json')
  const revisit = await site.app.inject({ url: '/typed', headers: { 'if-none-match': first.headers.etag as string } })
  t.equal(revisit.statusCode, 304)
  for (const name of ['content-type', 'content-length', 'content-language']) t.equal(revisit.headers[name], undefined, `no ${name}`)
  t.equal(revisit.headers.etag, first.headers.etag, 'the ETag, as the RFC requires')
  t.equal(revisit.headers['cache-control'], 'max-age=60', 'the Cache-Control, as the RFC requires')
  t.ok(revisit.headers.date !== undefined && revisit.headers['last-modified'] !== undefined, 'Date, and Last-Modified to guide the update')
  t.equal(revisit.headers['x-kept'], 'yes', 'fields that are not representation metadata stay')
  for (const url of ['/always-304', '/stepped']) {
    // a scripted 304 answers only a conditional request (RFC 9110 15.4.5)
    const r = await site.app.inject({ url, headers: { 'if-none-match': '"any"' } })
    t.equal(r.statusCode, 304, url)
    t.equal(r.headers['content-type'], undefined, `${url}: no Content-Type`)
    t.equal(r.headers['content-length'], undefined, `${url}: no Content-Length`)
    t.equal(r.body, '', `${url}: no body`)
  }
})
