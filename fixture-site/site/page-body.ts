import { seededRandom } from './seeded.js'

export type PageType = 'html' | 'json' | 'text'

export interface PageSpec {
  seed: string
  /** What the words are seeded by: usually origin and path. */
  key: string
  title: string
  type: PageType
  /** Target size in bytes (reached exactly unless the fixed parts are longer). */
  size?: number
  /** Meaningful revision: changes the words. */
  semantic: number
  /** Cosmetic revision: changes only a comment and trailing whitespace. */
  cosmetic: number
  /** Links to put in an HTML page. */
  links?: Array<{ href: string, text: string }>
  /** Fixed text instead of seeded words. */
  text?: string
}

const WORDS = ('crawl fetch cache stale fresh etag header origin server client request response ' +
  'validator revalidate budget retry defer schedule change journal clock site page body byte ' +
  'gzip redirect vary language token scope report quality churn steady honest window revision ' +
  'moment river stone cloud lantern harbor meadow signal thread bridge garden market winter').split(' ')

function words (seed: string, key: string, length: number): string {
  const random = seededRandom(seed, key)
  let out = ''
  while (out.length < length) out += `${WORDS[Math.floor(random() * WORDS.length)]} `
  return out.slice(0, Math.max(0, length))
}

const escapeHtml = (s: string): string => s.replace(/[&<>"]/g, c => `&#${c.charCodeAt(0)};`)

/**
 * A deterministic page: the same spec gives the same bytes. A semantic revision changes
 * the text; a cosmetic one only adds a comment (HTML) and whitespace, a few bytes past the
 * size.
 */
export function renderPage (spec: PageSpec): Buffer {
  const seedKey = `${spec.key}#${spec.semantic}`
  // the revision number spelled in spaces and tabs: unique per revision, whitespace only
  const cosmeticTail = spec.cosmetic > 0 ? spec.cosmetic.toString(2).replace(/0/g, ' ').replace(/1/g, '\t') : ''
  if (spec.type === 'json') {
    const head = JSON.stringify({ title: spec.title, revision: spec.semantic, text: '' })
    // the words fill the body to its size in bytes: the head, the words, the newline
    const fill = spec.text ?? words(spec.seed, seedKey, Math.max(16, (spec.size ?? 256) - Buffer.byteLength(head) - 1))
    const indent = spec.cosmetic % 2 === 1 ? 1 : undefined
    return Buffer.from(`${JSON.stringify({ title: spec.title, revision: spec.semantic, text: fill }, null, indent)}${cosmeticTail}\n`)
  }
  if (spec.type === 'text') {
    const head = `${spec.title}\nrevision ${spec.semantic}\n\n`
    const fill = spec.text ?? words(spec.seed, seedKey, Math.max(16, (spec.size ?? 256) - Buffer.byteLength(head) - 1))
    return Buffer.from(`${head}${fill}${cosmeticTail}\n`)
  }
  const links = (spec.links ?? []).map(l => `<li><a href="${escapeHtml(l.href)}">${escapeHtml(l.text)}</a></li>`).join('\n')
  const comment = spec.cosmetic > 0 ? `<!-- build ${spec.cosmetic} -->` : ''
  const head = `<!doctype html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(spec.title)}</title></head>\n` +
    `<body><h1>${escapeHtml(spec.title)}</h1>\n<p>revision ${spec.semantic}</p>\n<p>`
  const tail = `</p>\n${links.length > 0 ? `<ul>\n${links}\n</ul>\n` : ''}</body></html>\n`
  // the words fill the page to its size before any cosmetic revision, so a cosmetic
  // revision adds its comment and whitespace and never touches a word
  const fill = spec.text !== undefined ? escapeHtml(spec.text) : words(spec.seed, seedKey, Math.max(16, (spec.size ?? 512) - Buffer.byteLength(head) - Buffer.byteLength(tail)))
  return Buffer.from(head + fill + tail.replace('</body></html>\n', `${comment}</body></html>${cosmeticTail}\n`))
}
