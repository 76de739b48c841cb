import { spawn, type ChildProcess } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { errors } from '../common/errors.js'
import { fromRoot } from '../common/paths.js'

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

export interface OriginsSite {
  /** Each origin's URL, no trailing slash, in the order `webkrab serve` printed them. */
  origins: string[]
  close: () => Promise<void>
}

/**
 * Writes the site file to `file`, starts `webkrab serve --site file` and resolves once
 * it has printed every origin's line (`origin NAME URL`, one write for them all).
 */
export async function serveOriginsSite (file: string, count: number, pageBytes: number, journalSize: number): Promise<OriginsSite> {
  writeFileSync(file, originsSiteText(count, pageBytes))
  const child: ChildProcess = spawn(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'serve', '--site', file, '--journal-size', String(journalSize)], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, NODE_OPTIONS: '' } })
  const close = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise(resolve => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
  }
  try {
    const origins = await new Promise<string[]>((resolve, reject) => {
      const found: string[] = []
      const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream })
      lines.on('line', line => {
        const m = /^origin \S+ (\S+)$/.exec(line)
        if (m === null) return
        found.push(m[1])
        if (found.length === count) {
          lines.close()
          resolve(found)
        }
      })
      child.once('exit', code => { reject(errors.WEBKRAB_ERR_INTERNAL(`webkrab serve --site exited with ${String(code)} before its ${count} origins listened`)) })
    })
    return { origins, close }
  } catch (err) {
    await close()
    throw err
  }
}
