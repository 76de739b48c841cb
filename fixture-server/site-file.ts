import { readFile } from 'node:fs/promises'
import { errors } from '../common/errors.js'
import type { SiteDefinition } from './site-definition.js'

/** Parses a site file's text; errors name `fileName:line:col` and the rule broken. */
export function parseSiteYaml (text: string, fileName: string): SiteDefinition {
  void text
  throw errors.WEBKRAB_ERR_BAD_SITE(`${fileName}: site files are not read yet`)
}

/** Reads and parses a site file. */
export async function loadSiteFile (path: string): Promise<SiteDefinition> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw errors.WEBKRAB_ERR_FILE_NOT_FOUND(path, { cause: err })
  }
  return parseSiteYaml(text, path)
}
