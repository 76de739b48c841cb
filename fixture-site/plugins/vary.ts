import type { FastifyInstance } from 'fastify'
import { weightedList } from '../../common/http/header-lists.js'
import { cataloguePage } from '../catalogue/catalogue-page.js'
import { getRoute } from '../http/get-route.js'
import { sendRepresentation } from '../http/representation.js'
import type { OriginContext } from '../site/site-state.js'

export const LANGUAGES = ['en', 'fr', 'de'] as const
export type Language = typeof LANGUAGES[number]

const GREETING: Record<Language, string> = {
  en: 'Hello: this page is in English.',
  fr: 'Bonjour : cette page est en français.',
  de: 'Hallo: diese Seite ist auf Deutsch.'
}

/**
 * Picks a language for an Accept-Language value (RFC 9110 12.5.4): the highest q among
 * those offered, matching a range by prefix ("fr-CH" matches "fr"); "en" when none does.
 */
export function chooseLanguage (acceptLanguage: string | undefined): Language {
  if (acceptLanguage === undefined) return 'en'
  let best: Language = 'en'
  let bestQ = 0
  for (const { value: range, q } of weightedList(acceptLanguage)) {
    if (q <= bestQ) continue
    const lang = range === '*' ? 'en' : LANGUAGES.find(l => range === l || range.startsWith(`${l}-`))
    if (lang !== undefined) {
      best = lang
      bestQ = q
    }
  }
  return best
}

/** /vary/accept-language: one representation per language, with Vary: Accept-Language. */
export async function varyPlugin (app: FastifyInstance, opts: { ctx: OriginContext }): Promise<void> {
  const { ctx } = opts
  getRoute(app, '/vary/accept-language', (request, reply) => {
    const lang = chooseLanguage(request.headers['accept-language'])
    const page = cataloguePage(ctx, '/vary/accept-language', { variant: lang, title: `WebKrab fixture /vary/accept-language (${lang})`, text: GREETING[lang] })
    return sendRepresentation(ctx, request, reply, {
      contentType: 'text/html; charset=utf-8',
      body: page.body,
      etag: page.strongTag,
      lastModified: page.lastModified,
      vary: 'Accept-Language',
      headers: { 'content-language': lang }
    })
  })
}
