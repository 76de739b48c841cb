import { escapeHtml } from './escape-html.js'
import { PAGE_CSS } from './styles.js'
import { TABLE_SCRIPT } from './table-script.js'

export interface PageOptions {
  title: string
  subtitle?: string
  /** The page's content, as HTML (build it with the kit's helpers and escapeHtml). */
  body: string
  /** Extra inline scripts (plain JavaScript, run after the body). The table script is always included. */
  scripts?: string[]
  /** Extra CSS appended to the kit's stylesheet. */
  styles?: string
  /** A line in the footer, e.g. the generator and version. */
  footer?: string
  /** Links above the title, to the pages beside this one (relative hrefs: the pages stay self-contained). */
  nav?: Array<{ href: string, label: string }>
}

/**
 * A complete, self-contained HTML document: inline CSS and JavaScript, no
 * external fetches (a Content-Security-Policy forbids them), so it opens from
 * disk, mails as one attachment and prints cleanly.
 */
export function renderPage (options: PageOptions): string {
  const scripts = [TABLE_SCRIPT, ...(options.scripts ?? [])].map(s => `<script>${guardScript(s)}</script>`).join('\n')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<title>${escapeHtml(options.title)}</title>
<style>${PAGE_CSS}${options.styles ?? ''}</style>
</head>
<body>
${options.nav === undefined || options.nav.length === 0 ? '' : `<nav class="page">${options.nav.map(n => `<a href="${escapeHtml(n.href)}">${escapeHtml(n.label)}</a>`).join(' · ')}</nav>`}
<header class="page"><h1>${escapeHtml(options.title)}</h1>${options.subtitle === undefined ? '' : `<p class="subtitle">${escapeHtml(options.subtitle)}</p>`}</header>
<main>
${options.body}
</main>
${options.footer === undefined ? '' : `<footer class="page">${escapeHtml(options.footer)}</footer>`}
${scripts}
</body>
</html>
`
}

/** `</script` inside a script would end it early (HTML parsing, not JavaScript, decides). */
function guardScript (source: string): string {
  return source.replace(/<\/(script)/gi, '<\\/$1')
}
