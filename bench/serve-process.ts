import { spawn, type ChildProcess } from 'node:child_process'
import { createInterface } from 'node:readline'
import { errors } from '../common/errors.js'
import { fromRoot } from '../common/paths.js'

/** A `webkrab serve` child process: its origins' URLs, in the order it printed them. */
export interface ServeProcess {
  origins: string[]
  close: () => Promise<void>
}

/**
 * Starts `webkrab serve ARGS` in a process of its own (a benchmark's fixture site is a
 * real site: its work is not charged to the client measured) and resolves once it has
 * printed `count` origin lines (`origin NAME URL`).
 */
export async function serveProcess (args: string[], count: number): Promise<ServeProcess> {
  // a channel to the child, which ends the site when this process ends, even one that crashes
  // before it could close it: no site is left listening for nobody
  const child: ChildProcess = spawn(process.execPath, [fromRoot('dist/bin/webkrab.js'), 'serve', ...args], { stdio: ['ignore', 'pipe', 'inherit', 'ipc'], env: { ...process.env, NODE_OPTIONS: '' } })
  // the channel alone never keeps this process up
  child.channel?.unref()
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
      child.once('exit', code => { reject(errors.WEBKRAB_ERR_INTERNAL(`webkrab serve exited with ${String(code)} before its ${count} origin(s) listened`)) })
    })
    return { origins, close }
  } catch (err) {
    await close()
    throw err
  }
}
