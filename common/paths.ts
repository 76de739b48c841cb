import { fileURLToPath } from 'node:url'
import { dirname, resolve } from 'node:path'

/**
 * The package root, found from this file's place whether it runs from
 * `common/` (sources) or `dist/common/` (compiled).
 */
const here = dirname(fileURLToPath(import.meta.url))
export const packageRoot = resolve(here, here.endsWith(`${'dist'}/common`) || here.endsWith('dist\\common') ? '../..' : '..')

export function fromRoot (...parts: string[]): string {
  return resolve(packageRoot, ...parts)
}
