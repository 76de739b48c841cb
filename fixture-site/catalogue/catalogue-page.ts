import { renderPage, type PageType } from '../site/page-body.js'
import { contentHash } from '../site/seeded.js'
import type { ContentRevision, OriginContext } from '../site/site-state.js'

export interface CataloguePage {
  body: Buffer
  /** Strong content-hash ETag: moves with any byte. */
  strongTag: string
  /** Weak ETag: moves only with a semantic revision. */
  weakTag: string
  /** The base Last-Modified, or the time of the last change made from outside. */
  lastModified: number
}

/** Catalogue pages are 2 KB of seeded HTML unless a path says otherwise. */
export const CATALOGUE_PAGE_SIZE = 2048

/**
 * The body and validators of a catalogue path, with the changes made to it from outside
 * (site.change). `variant` separates representations of one path (a language, a version).
 */
export function cataloguePage (ctx: OriginContext, path: string, options: { variant?: string, title?: string, text?: string, type?: PageType, semanticOffset?: number } = {}): CataloguePage {
  const { state } = ctx
  const rev = state.revision(ctx.name, path)
  const variant = options.variant ?? ''
  const semantic = rev.semantic + (options.semanticOffset ?? 0)
  const key = `catalogue ${ctx.name} ${path} ${variant} ${semantic} ${rev.cosmetic}`
  const page = state.memo(key, () => {
    const body = renderPage({
      seed: state.seed,
      key: `${path}${variant}`,
      title: options.title ?? `WebKrab fixture ${path}`,
      type: options.type ?? 'html',
      size: CATALOGUE_PAGE_SIZE,
      semantic,
      cosmetic: rev.cosmetic,
      text: options.text
    })
    return {
      body,
      strongTag: `"${contentHash(body)}"`,
      weakTag: `W/"${contentHash(state.seed, path, variant, String(semantic))}"`
    }
  })
  return { ...page, lastModified: Math.max(state.baseLastModified, rev.lastChangedAt ?? 0) }
}

/**
 * A page getter for one fixed path: it renders again only when the path's revision
 * object changes, so serving costs no key strings and no copies per request.
 */
export function pageSource (ctx: OriginContext, path: string, options: { title?: string, text?: string, type?: PageType } = {}): () => CataloguePage {
  const key = `${ctx.name} ${path}`
  let seen: Readonly<ContentRevision> | null = null
  let page: CataloguePage | null = null
  return () => {
    const rev = ctx.state.revisionByKey(key)
    if (rev !== seen || page === null) {
      page = cataloguePage(ctx, path, options)
      seen = rev
    }
    return page
  }
}
