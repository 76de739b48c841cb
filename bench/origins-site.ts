import { writeFileSync } from 'node:fs'
import { serveProcess, type ServeProcess } from './serve-process.js'

/**
 * A fixture site of many origins for the crawler at scale: `count` origins on
 * 127.0.0.1, each on its own port, each serving `/p`, a page of `pageBytes` bytes
 * (the same page whatever the query, so `/p?page=N` are as many URLs as wanted).
 * It runs as `webkrab serve --site` in a process of its own, so its memory (a
 * fastify app per origin, about 0.4 MB each) is not the measuring process's.
 */

/** The site file's text: YAML, one origin a few lines. */
export function originsSiteText (count: number, pageBytes: number): string {
  const lines = ['# the crawler at scale: one page route per origin, each origin on its own port', 'origins:']
  for (let i = 0; i < count; i++) {
    lines.push(`  - name: o${i}`, '    routes:', '      - path: /p', `        body: { type: bytes, size: ${pageBytes} }`)
  }
  return `${lines.join('\n')}\n`
}

/** Writes the site file to `file` and starts `webkrab serve --site file` in a process of its own. */
export async function serveOriginsSite (file: string, count: number, pageBytes: number, journalSize: number): Promise<ServeProcess> {
  writeFileSync(file, originsSiteText(count, pageBytes))
  return await serveProcess(['--site', file, '--journal-size', String(journalSize)], count)
}
