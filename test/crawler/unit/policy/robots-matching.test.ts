import t, { type Test } from 'tap'
import fc from 'fast-check'
import { holds } from '../../../property.js'
import { chooseRobotsGroup, matchRobots, robotsCrawlDelay } from '../../../../crawler/policy/robots-match.js'
import { normaliseRobotsPattern, normaliseRobotsTarget, robotsPatternMatches } from '../../../../crawler/policy/robots-path.js'
import { parseRobots, productTokenOf, ROBOTS_PARSING_LIMIT_BYTES } from '../../../../crawler/policy/robots-rules.js'

/** Allowed or not, for a file, a product token and a path. */
const allowed = (file: string | Buffer, token: string, path: string): boolean => matchRobots(parseRobots(file), token, path).allowed

/** Cases as rows: [token, path, allowed]. */
function table (t: Test, file: string | Buffer, rows: Array<[string, string, boolean]>): void {
  const rules = parseRobots(file)
  for (const [token, path, expected] of rows) t.equal(matchRobots(rules, token, path).allowed, expected, `${token} ${path}: ${expected ? 'allowed' : 'disallowed'}`)
}

// RFC 9309 section 5.1, as printed
const EXAMPLE_5_1 = [
  'User-Agent: *',
  'Disallow: *.gif$',
  'Disallow: /example/',
  'Allow: /publications/',
  '',
  'User-Agent: foobot',
  'Disallow:/',
  'Allow:/example/page.html',
  'Allow:/example/allowed.gif',
  '',
  'User-Agent: barbot',
  'User-Agent: bazbot',
  'Disallow: /example/page.html',
  '',
  'User-Agent: quxbot',
  ''
].join('\n')

t.test('RFC 9309 example 5.1: each group gets exactly the access the RFC describes', async t => {
  table(t, EXAMPLE_5_1, [
    // "*": /publications/ allowed, /example/ and every .gif restricted, "*" matching "/" too
    ['otherbot', '/publications/a.html', true],
    ['otherbot', '/example/x.html', false],
    ['otherbot', '/images/deep/cat.gif', false],
    ['otherbot', '/images/cat.gif?size=2', true],
    ['otherbot', '/index.html', true],
    // foobot: "only has access to two URL path prefixes on the site"
    ['foobot', '/example/page.html', true],
    ['foobot', '/example/allowed.gif', true],
    ['foobot', '/example/other.html', false],
    ['foobot', '/', false],
    // barbot and bazbot: one group for both
    ['barbot', '/example/page.html', false],
    ['bazbot', '/example/page.html', false],
    ['bazbot', '/example/other.html', true],
    ['barbot', '/cat.gif', true],
    // quxbot: "An empty group at the end of the file. The crawler has unrestricted access"
    ['quxbot', '/example/page.html', true],
    ['quxbot', '/cat.gif', true]
  ])
})

t.test('RFC 9309 example 5.2: the longest match is used', async t => {
  const file = 'User-Agent: foobot\nAllow: /example/page/\nDisallow: /example/page/disallowed.gif\n'
  const m = matchRobots(parseRobots(file), 'foobot', '/example/page/disallowed.gif')
  t.equal(m.allowed, false)
  t.equal(m.rule?.line, 3)
  t.equal(m.rule?.text, 'Disallow: /example/page/disallowed.gif')
  t.equal(allowed(file, 'foobot', '/example/page/other.gif'), true)
})

t.test('groups that name the same product token are merged into one (RFC 9309 Figure 2)', async t => {
  const file = 'user-agent: ExampleBot\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: ExampleBot\ndisallow: /baz\n'
  table(t, file, [['ExampleBot', '/foo', false], ['ExampleBot', '/bar', false], ['ExampleBot', '/baz', false], ['ExampleBot', '/qux', true]])
  t.equal(chooseRobotsGroup(parseRobots(file), 'examplebot').groups.length, 2)
})

t.test('without a group of its own, a crawler obeys the "*" group (RFC 9309 Figure 3)', async t => {
  const file = 'user-agent: *\ndisallow: /foo\ndisallow: /bar\n\nuser-agent: BazBot\ndisallow: /baz\n'
  table(t, file, [['ExampleBot', '/foo', false], ['ExampleBot', '/bar', false], ['ExampleBot', '/baz', true], ['BazBot', '/foo', true], ['BazBot', '/baz', false]])
  t.equal(chooseRobotsGroup(parseRobots(file), 'ExampleBot').by, 'star')
})

t.test('with no matching group and no "*" group, or no group at all, no rules apply', async t => {
  table(t, 'user-agent: BazBot\ndisallow: /\n', [['ExampleBot', '/anything', true], ['BazBot', '/anything', false]])
  table(t, '# only a comment\n', [['ExampleBot', '/', true]])
  table(t, '', [['ExampleBot', '/', true]])
  t.equal(chooseRobotsGroup(parseRobots(''), 'x').by, 'none')
})

t.test('the product token is matched case-insensitively, and record names are too', async t => {
  table(t, 'USER-AGENT: EXAMPLEBOT\nDISALLOW: /private\n', [['examplebot', '/private', false], ['ExampleBot', '/private', false], ['otherbot', '/private', true]])
})

t.test('the product token of a User-Agent value is its leading letters, underscores and hyphens', async t => {
  t.equal(productTokenOf('webkrab/0.1.0 (reference crawler)'), 'webkrab')
  t.equal(productTokenOf('Googlebot-News'), 'googlebot-news')
  t.equal(productTokenOf('*'), '*')
  t.equal(productTokenOf('/0.1'), '')
  // a versioned user-agent line in the file names the same token
  table(t, 'User-agent: ExampleBot/1.2\nDisallow: /x\n', [['ExampleBot', '/x', false]])
})

t.test('path matching is case-sensitive and starts with the first octet of the path', async t => {
  table(t, 'User-agent: *\nDisallow: /Folder\n', [['a', '/Folder/x', false], ['a', '/folder/x', true], ['a', '/x/Folder', true]])
})

t.test('of an Allow and a Disallow of equal length, the Allow wins', async t => {
  table(t, 'User-agent: *\nDisallow: /tie\nAllow: /tie\n', [['a', '/tie', true], ['a', '/tie/more', true]])
  table(t, 'User-agent: *\nAllow: /tie\nDisallow: /tie\n', [['a', '/tie', true]])
  // the longer pattern wins, whichever kind it is and wherever it stands
  table(t, 'User-agent: *\nAllow: /deep/er/\nDisallow: /deep/\nDisallow: /deep/er/est/\n', [['a', '/deep/x', false], ['a', '/deep/er/x', true], ['a', '/deep/er/est/x', false]])
})

t.test('"*" matches any run of octets, including "/", and a final "$" ends the pattern (RFC 9309 2.2.3)', async t => {
  table(t, 'User-agent: *\nDisallow: /this/*/exactly\nDisallow: /end/exactly$\nDisallow: /*.pdf$\n', [
    ['a', '/this/x/exactly', false],
    ['a', '/this/x/y/exactly/more', false],
    ['a', '/this/exactly', true],
    ['a', '/end/exactly', false],
    ['a', '/end/exactly/more', true],
    ['a', '/docs/a.pdf', false],
    ['a', '/docs/a.pdf?download=1', true],
    ['a', '/docs/a.pdfx', true]
  ])
  // Allow: /search$ is longer than Disallow: /search, so the bare path is allowed and the rest not
  table(t, 'User-agent: *\nAllow: /search$\nDisallow: /search\n', [['a', '/search', true], ['a', '/search?q=1', false]])
})

t.test('"#" starts a comment, on its own line or after a rule (RFC 9309 2.2.3)', async t => {
  table(t, '# a comment\nUser-agent: * # everyone\nDisallow: /a # not /a/b\n', [['x', '/a', false], ['x', '/b', true]])
})

t.test('an empty Disallow matches nothing: the group allows everything', async t => {
  table(t, 'User-agent: *\nDisallow:\n', [['a', '/', true], ['a', '/x', true]])
})

t.test('/robots.txt is implicitly allowed, whatever the rules say', async t => {
  table(t, 'User-agent: *\nDisallow: /\n', [['a', '/robots.txt', true], ['a', '/robots.txt.bak', false]])
})

t.test('rules before the first user-agent line belong to no group and are ignored', async t => {
  const rules = parseRobots('Disallow: /early\nUser-agent: *\nDisallow: /late\n')
  t.equal(matchRobots(rules, 'a', '/early').allowed, true)
  t.equal(matchRobots(rules, 'a', '/late').allowed, false)
  t.equal(rules.ignoredLines, 1)
})

t.test('a Sitemap or Crawl-delay line does not end a group, nor split its user-agent lines (RFC 9309 2.2.4)', async t => {
  table(t, 'User-agent: a\nSitemap: http://x/s.xml\nUser-agent: b\nDisallow: /\n', [['a', '/x', false], ['b', '/x', false]])
  table(t, 'User-agent: a\nDisallow: /one\nSitemap: http://x/s.xml\nDisallow: /two\n', [['a', '/two', false]])
  t.same(parseRobots('Sitemap: http://x/s.xml\nUser-agent: a\nSitemap: http://x/t.xml\n').sitemaps, ['http://x/s.xml', 'http://x/t.xml'])
})

t.test('a user-agent line after a rule starts a new group', async t => {
  table(t, 'User-agent: a\nDisallow: /a\nUser-agent: b\nDisallow: /b\n', [['a', '/a', false], ['a', '/b', true], ['b', '/b', false], ['b', '/a', true]])
})

t.test('octets outside ASCII are compared percent-encoded, raw or encoded alike (RFC 9309 Figure 4)', async t => {
  // U+30C4 is E3 83 84 in UTF-8
  table(t, 'User-agent: *\nDisallow: /foo/bar/ツ\n', [['a', '/foo/bar/%E3%83%84', false], ['a', '/foo/bar/ツ', false], ['a', '/foo/bar/%e3%83%84', false]])
  table(t, 'User-agent: *\nDisallow: /foo/bar/%E3%83%84\n', [['a', '/foo/bar/ツ', false], ['a', '/foo/bar/%E3%83%85', true]])
})

t.test('a character outside the Basic Multilingual Plane is compared as its four UTF-8 octets', async t => {
  // U+1F980 (crab) is F0 9F A6 80
  table(t, 'User-agent: *\nDisallow: /\u{1F980}/\n', [['a', '/%F0%9F%A6%80/x', false], ['a', '/\u{1F980}/x', false], ['a', '/%F0%9F%A6%81/x', true]])
})

t.test('a percent-encoded unreserved octet is compared unencoded, in the URI and in the rule (RFC 9309 Figure 4)', async t => {
  table(t, 'User-agent: *\nDisallow: /foo/bar/baz\n', [['a', '/foo/bar/%62%61%7A', false]])
  table(t, 'User-agent: *\nDisallow: /%7Ejoe/\nDisallow: /~ann/\n', [['a', '/~joe/x', false], ['a', '/%7Eann/x', false], ['a', '/%7eann/x', false]])
})

t.test('a percent-encoded reserved character stays encoded: %2F is not a path separator', async t => {
  table(t, 'User-agent: *\nDisallow: /a%2Fb\n', [['a', '/a/b', true], ['a', '/a%2Fb', false], ['a', '/a%2fb', false]])
})

t.test('"*" and "$" written %2A and %24 in a rule match those characters in the URI (RFC 9309 Figure 6)', async t => {
  table(t, 'User-agent: *\nDisallow: /path/file-with-a-%2A.html\nDisallow: /path/foo-%24\n', [
    ['a', '/path/file-with-a-*.html', false],
    ['a', '/path/file-with-a-x.html', true],
    ['a', '/path/foo-$', false],
    ['a', '/path/foo-', true]
  ])
  // a "$" in the middle of a pattern means itself
  table(t, 'User-agent: *\nDisallow: /a$b\n', [['a', '/a$b', false], ['a', '/a', true]])
})

t.test('the rule that decided is returned with its line and text, and the reason names them', async t => {
  const m = matchRobots(parseRobots('User-agent: *\n\nDisallow: /private/   # keep out\n'), 'webkrab', '/private/x?y=1')
  t.same(m.rule && { line: m.rule.line, text: m.rule.text, kind: m.rule.kind }, { line: 3, text: 'Disallow: /private/', kind: 'disallow' })
  t.match(m.reason, /line 3 "Disallow: \/private\/"/)
  t.match(m.reason, /RFC 9309 section 2\.2\.2/)
})

t.test('a UTF-8 BOM and CRLF, lone CR or LF line ends all give the same rules', async t => {
  const lines = ['User-agent: *', 'Disallow: /private/', 'Allow: /private/open']
  for (const [name, file] of [
    ['lf', lines.join('\n')],
    ['crlf', lines.join('\r\n')],
    ['cr', lines.join('\r')],
    ['bom', `\ufeff${lines.join('\n')}`],
    ['bom bytes', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(lines.join('\r\n'))])]
  ] as const) {
    const rules = parseRobots(file)
    t.equal(rules.groups.length, 1, `${name}: one group`)
    t.same(rules.groups[0]?.agents, ['*'], `${name}: its agent is *`)
    t.equal(matchRobots(rules, 'a', '/private/x').allowed, false, `${name}: /private/x disallowed`)
    t.equal(matchRobots(rules, 'a', '/private/open').allowed, true, `${name}: /private/open allowed`)
  }
})

t.test('garbage lines are skipped and the parseable rules around them still count (RFC 9309 2.3.1.5)', async t => {
  const file = [
    '<html><body>not robots</body></html>',
    'User-agent: *',
    'Disallow: /before/',
    'a line without a colon',
    'Disalow: /typo/',
    '\u0000\u0001 binary \ufffd',
    'Allow /no-colon/',
    'Disallow: /after/'
  ].join('\n')
  const rules = parseRobots(file)
  t.equal(matchRobots(rules, 'a', '/before/x').allowed, false)
  t.equal(matchRobots(rules, 'a', '/after/x').allowed, false)
  // a misspelt record name is not a rule: only other records may be read leniently (2.2.4)
  t.equal(matchRobots(rules, 'a', '/typo/x').allowed, true)
  t.equal(rules.ignoredLines, 5)
})

t.test('at least 500 KiB is parsed and what follows the limit is not (RFC 9309 2.5)', async t => {
  const head = 'User-agent: *\nDisallow: /first/\n'
  const pad = (to: number): string => `${head}${'#'.repeat(to - head.length - 1)}\n`
  const inside = 'Disallow: /inside/\n'
  const atLimit = `${pad(ROBOTS_PARSING_LIMIT_BYTES - inside.length)}${inside}`
  t.equal(Buffer.byteLength(atLimit), 512000)
  t.equal(allowed(atLimit, 'a', '/inside/x'), false, 'a rule ending at byte 512000 is obeyed')
  t.equal(parseRobots(atLimit).truncated, false)

  const beyond = `${pad(ROBOTS_PARSING_LIMIT_BYTES)}Disallow: /beyond/\n`
  const rules = parseRobots(beyond)
  t.equal(rules.truncated, true)
  t.equal(rules.parsedBytes, 512000)
  t.equal(matchRobots(rules, 'a', '/beyond/x').allowed, true, 'a rule after the limit is not read')
  t.equal(matchRobots(rules, 'a', '/first/x').allowed, false, 'the rules inside the limit stand')

  // a line cut by the limit is dropped whole, not read as a shorter rule
  const straddle = `${pad(ROBOTS_PARSING_LIMIT_BYTES - 5)}Disallow: /straddle/\n`
  t.equal(allowed(straddle, 'a', '/st'), true)
  t.equal(allowed(straddle, 'a', '/straddle/'), true)

  // a limit below the RFC's floor is raised to it; a higher one reads more
  t.equal(parseRobots(beyond, { limitBytes: 1000 }).parsedBytes, 512000)
  t.equal(matchRobots(parseRobots(beyond, { limitBytes: 1024 * 1024 }), 'a', '/beyond/x').allowed, false)
})

t.test('Crawl-delay is read per group: the crawler\'s own, else the "*" group\'s; merged groups give the longest', async t => {
  const file = 'User-agent: *\nCrawl-delay: 2\nDisallow: /p\n\nUser-agent: webkrab\nCrawl-delay: 5\nDisallow: /x\n\nUser-agent: webkrab\nCrawl-delay: 7.5\n'
  t.same(robotsCrawlDelay(parseRobots(file), 'webkrab'), { seconds: 7.5, line: 10, text: 'Crawl-delay: 7.5' })
  t.equal(robotsCrawlDelay(parseRobots(file), 'other')?.seconds, 2)
  // a Crawl-delay line does not end the group's user-agent lines (2.2.4): the two share it, and its longest delay
  const shared = parseRobots('User-agent: *\nCrawl-delay: 2\n\nUser-agent: webkrab\nCrawl-delay: 9\n')
  t.equal(shared.groups.length, 1)
  t.equal(robotsCrawlDelay(shared, 'other')?.seconds, 9)
  t.equal(robotsCrawlDelay(parseRobots('User-agent: *\nCrawl-delay: soon\n'), 'a'), null)
})

t.test('a pattern of thousands of wildcards against a long path is decided (no backtracking blow-up)', async t => {
  const pattern = normaliseRobotsPattern(`/${'a*'.repeat(5000)}b$`)
  const target = normaliseRobotsTarget(`/${'a'.repeat(20000)}`)
  t.equal(robotsPatternMatches(pattern, target), false)
  t.equal(robotsPatternMatches(pattern, `${target}b`), true)
})

t.test('the matcher agrees with a regular-expression reading of "*" and "$" on random patterns', async t => {
  const piece = fc.stringMatching(/^[ab/.]{0,4}$/)
  holds(t, fc.property(fc.array(piece, { minLength: 1, maxLength: 5 }), fc.boolean(), fc.stringMatching(/^[ab/.]{0,12}$/), (pieces, anchored, rest) => {
    const pattern = `/${pieces.join('*')}${anchored ? '$' : ''}`
    const target = `/${rest}`
    const re = new RegExp(`^/${pieces.map(p => p.replace(/[./]/g, c => `\\${c}`)).join('.*')}${anchored ? '$' : ''}`)
    return robotsPatternMatches(normaliseRobotsPattern(pattern), normaliseRobotsTarget(target)) === re.test(target)
  }), { numRuns: 2000, seed: 9309 })
})

t.test('one parsed file asked for by several crawlers gives each its own group, in whatever order they ask', async t => {
  const rules = parseRobots('User-agent: foobot\nDisallow: /foo\n\nUser-agent: *\nDisallow: /all\n')
  const asked: Array<[string, string, boolean, string]> = [
    ['foobot', '/foo/x', false, 'the group for "foobot"'],
    ['barbot', '/foo/x', true, 'the "*" group'],
    ['foobot', '/all/x', true, 'the group for "foobot"'],
    ['barbot/2.0', '/all/x', false, 'the "*" group'],
    ['FooBot', '/foo/y', false, 'the group for "foobot"']
  ]
  for (const [token, path, allowed, group] of asked) {
    const m = matchRobots(rules, token, path)
    t.equal(m.allowed, allowed, `${token} ${path}`)
    t.match(m.reason, group, 'and the reason names the group it obeyed')
  }
  // more crawlers than the choices remembered for one file: each still gets its own
  for (let i = 0; i < 40; i++) t.equal(matchRobots(rules, `bot${i}`, '/all/x').allowed, false)
  t.equal(matchRobots(rules, 'foobot', '/foo/x').allowed, false)
})
