import { readFileSync } from 'node:fs'
import { isAlias, isMap, isScalar, type Node } from 'yaml'
import { errors } from '../../common/errors.js'
import { parseYamlDocument } from '../../common/yaml/yaml-tags.js'

/**
 * `webkrab crawl --plan --importance FILE`: the operator's weight per URL, a
 * YAML (or JSON) mapping from absolute URL to a positive number. The revisit
 * planner multiplies a resource's index by its weight (planning/revisit-index.ts),
 * so a page of weight 4 gets the requests a page of weight 1 would get were it
 * changing four times as often; unlisted URLs weigh 1.
 *
 * ```yaml
 * https://example.org/: 10
 * https://example.org/news: 4
 * ```
 */
export function parseImportance (text: string, file: string): Record<string, number> {
  const { doc, lines } = parseYamlDocument(text, file)
  const where = (node: Node | null | undefined): string => {
    const at = lines.linePos(node?.range?.[0] ?? 0)
    return `${file}:${at.line}:${at.col}`
  }
  const contents = doc.contents
  if (contents === null) return {}
  if (!isMap(contents)) throw errors.WEBKRAB_ERR_BAD_FLAG(`--importance ${where(contents)}: expected a mapping from URL to weight, such as "https://example.org/news: 4"`)
  // an alias stands for the node it names (`news: *weight`); the document's aliases are bounded (yaml-tags.ts)
  const resolve = (node: Node | null): Node | null => isAlias(node) ? (node.resolve(doc) ?? null) as Node | null : node
  const out: Record<string, number> = {}
  for (const pair of contents.items) {
    const key = resolve(pair.key as Node | null)
    const value = resolve(pair.value as Node | null)
    const raw = isScalar(key) ? key.value : null
    if (typeof raw !== 'string') throw errors.WEBKRAB_ERR_BAD_FLAG(`--importance ${where(key)}: a key must be an absolute http(s) URL`)
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      throw errors.WEBKRAB_ERR_BAD_FLAG(`--importance ${where(key)}: ${JSON.stringify(raw)} is not an absolute URL`)
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw errors.WEBKRAB_ERR_BAD_FLAG(`--importance ${where(key)}: ${JSON.stringify(raw)} is not an http(s) URL`)
    const weight = isScalar(value) ? value.value : null
    if (typeof weight !== 'number' || !Number.isFinite(weight) || weight <= 0) {
      throw errors.WEBKRAB_ERR_BAD_FLAG(`--importance ${where(value ?? key)}: the weight of ${raw} must be a positive number, not ${JSON.stringify(weight)}`)
    }
    url.hash = ''
    out[url.href] = weight
  }
  return out
}

/** Reads an importance file; a missing file or bad content is bad input naming the file and position. */
export function loadImportance (path: string): Record<string, number> {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT') throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(`--importance ${path}`, { cause: err })
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--importance ${path}: cannot read it (${(err as Error).message})`, { cause: err })
  }
  return parseImportance(text, path)
}
