import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { errors } from '../common/errors.js'

/**
 * Keeps a benchmark's result under `dir` (--out): `NAME.json`, and the chart page
 * `NAME.html` rendered from that result alone. Returns the files written.
 */
export async function writeBenchResults (dir: string, name: string, result: unknown, page?: () => string): Promise<string[]> {
  const base = join(dir, name)
  const files = [`${base}.json`, ...(page === undefined ? [] : [`${base}.html`])]
  try {
    await mkdir(dir, { recursive: true })
    await writeFile(files[0], JSON.stringify(result, null, 2) + '\n')
    if (page !== undefined) await writeFile(files[1], page())
  } catch (err) {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`--out ${JSON.stringify(dir)}: cannot write the results there (${(err as Error).message})`, { cause: err })
  }
  return files
}
