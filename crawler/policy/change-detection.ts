import { createHash, type Hash } from 'node:crypto'

/**
 * Change is judged by content, never by headers: a streaming
 * SHA-256 of the decoded body says whether any byte changed (`strict`), and a
 * second SHA-256 over a normalised form says whether anything but whitespace and
 * comments changed (`semantic`). The operator chooses which counts with
 * `--change strict|semantic`.
 */
export interface ContentDigests {
  strict: string
  semantic: string
}

export type ChangeMode = 'strict' | 'semantic'

/** The comment syntax stripped from the normalised form, by media type. */
type CommentSyntax = { open: string, close: string } | null

/**
 * Which normalisation applies: markup loses `<!-- -->` comments and whitespace,
 * stylesheets and scripts lose block comments and whitespace, other text loses
 * whitespace, and anything else (images, archives) is compared byte for byte.
 */
export function normalisationFor (contentType: string | null | undefined): Normalisation {
  // a crawl meets the same Content-Type page after page: the last one's answer is kept
  if (contentType === lastType && lastNormalisation !== null) return lastNormalisation
  const type = (contentType ?? '').split(';')[0].trim().toLowerCase()
  let how: Normalisation = BYTES
  if (type === 'text/html' || type === 'application/xhtml+xml' || type.endsWith('/xml') || type.endsWith('+xml')) how = MARKUP
  else if (type === 'text/css' || type === 'text/javascript' || type === 'application/javascript') how = BLOCK_COMMENTED
  else if (type.startsWith('text/') || type === 'application/json' || type.endsWith('+json')) how = TEXT
  lastType = contentType
  lastNormalisation = how
  return how
}

type Normalisation = Readonly<{ text: boolean, comments: CommentSyntax }>

const MARKUP: Normalisation = Object.freeze({ text: true, comments: Object.freeze({ open: '<!--', close: '-->' }) })
const BLOCK_COMMENTED: Normalisation = Object.freeze({ text: true, comments: Object.freeze({ open: '/*', close: '*/' }) })
const TEXT: Normalisation = Object.freeze({ text: true, comments: null })
const BYTES: Normalisation = Object.freeze({ text: false, comments: null })
let lastType: string | null | undefined
let lastNormalisation: Normalisation | null = null

const WHITESPACE = /[\t\n\f\r ]+/g

/**
 * Strips comments and ASCII whitespace from a byte stream, chunk by chunk. Works
 * on latin1 strings (one char per byte), so multi-byte UTF-8 is untouched: the
 * markers and whitespace are all ASCII. A marker split across chunks is held
 * back (at most `open.length - 1` bytes) until the next chunk settles it.
 */
class Normaliser {
  private carry = ''
  private inComment = false

  constructor (private readonly comments: CommentSyntax, private readonly emit: (text: string) => void) {}

  push (chunk: Buffer): void {
    const text = this.carry + chunk.toString('latin1')
    this.carry = ''
    if (this.comments === null) {
      this.out(text)
      return
    }
    const { open, close } = this.comments
    let i = 0
    for (;;) {
      if (this.inComment) {
        const j = text.indexOf(close, i)
        if (j < 0) {
          this.carry = text.slice(Math.max(i, text.length - (close.length - 1)))
          return
        }
        i = j + close.length
        this.inComment = false
      } else {
        const j = text.indexOf(open, i)
        if (j < 0) {
          const keep = Math.max(i, text.length - (open.length - 1))
          this.out(text.slice(i, keep))
          this.carry = text.slice(keep)
          return
        }
        this.out(text.slice(i, j))
        i = j + open.length
        this.inComment = true
      }
      if (i >= text.length) return
    }
  }

  end (): void {
    // an unterminated comment is dropped: the same bytes always normalise the same way
    if (!this.inComment) this.out(this.carry)
    this.carry = ''
  }

  private out (text: string): void {
    const squeezed = text.replace(WHITESPACE, '')
    if (squeezed.length > 0) this.emit(squeezed)
  }
}

/** Feeds body chunks as they arrive; `digest()` at the end. Holds no body in memory. */
export class ContentDigester {
  private readonly strictHash: Hash = createHash('sha256')
  private readonly semanticHash: Hash | null
  private readonly normaliser: Normaliser | null
  private finished: ContentDigests | null = null
  bytes = 0

  constructor (contentType: string | null | undefined) {
    const how = normalisationFor(contentType)
    if (how.text) {
      const hash = createHash('sha256')
      this.semanticHash = hash
      this.normaliser = new Normaliser(how.comments, text => { hash.update(text, 'latin1') })
    } else {
      this.semanticHash = null
      this.normaliser = null
    }
  }

  update (chunk: Buffer): void {
    this.bytes += chunk.length
    this.strictHash.update(chunk)
    this.normaliser?.push(chunk)
  }

  digest (): ContentDigests {
    if (this.finished !== null) return this.finished
    const strict = `sha256:${this.strictHash.digest('hex')}`
    let semantic = strict
    if (this.normaliser !== null && this.semanticHash !== null) {
      this.normaliser.end()
      semantic = `sha256:${this.semanticHash.digest('hex')}`
    }
    this.finished = { strict, semantic }
    return this.finished
  }
}

/** Digests of a whole buffer (tests, small bodies). */
export function digestOf (body: Buffer | string, contentType: string | null | undefined): ContentDigests {
  const d = new ContentDigester(contentType)
  d.update(typeof body === 'string' ? Buffer.from(body) : body)
  return d.digest()
}

export type ChangeKind = 'new' | 'same' | 'cosmetic' | 'semantic'

export interface ChangeJudgement {
  kind: ChangeKind
  /** Whether this counts as a change under the operator's mode. */
  changed: boolean
  reason: string
}

/**
 * Compares a new download with the stored digests. In `strict` mode any byte
 * counts; in `semantic` mode a change confined to whitespace and comments does not.
 */
export function judgeChange (previous: { strict: string | null, semantic: string | null } | null,
  next: ContentDigests, mode: ChangeMode): ChangeJudgement {
  if (previous === null || previous.strict === null) {
    return { kind: 'new', changed: true, reason: 'no earlier content to compare with' }
  }
  if (previous.strict === next.strict) {
    return { kind: 'same', changed: false, reason: `content identical (${short(next.strict)})` }
  }
  if (previous.semantic !== null && previous.semantic === next.semantic) {
    return mode === 'strict'
      ? { kind: 'cosmetic', changed: true, reason: 'bytes changed (whitespace or comments only; --change strict counts it)' }
      : { kind: 'cosmetic', changed: false, reason: 'only whitespace or comments changed (--change semantic ignores it)' }
  }
  return { kind: 'semantic', changed: true, reason: `content changed (${short(previous.strict)} -> ${short(next.strict)})` }
}

function short (digest: string): string {
  return digest.slice(0, 'sha256:'.length + 12)
}
