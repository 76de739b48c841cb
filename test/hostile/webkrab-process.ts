import { spawn, type ChildProcess } from 'node:child_process'
import { fromRoot } from '../../common/paths.js'

/**
 * The real `webkrab` binary in a process of its own, for the rules that only hold
 * between processes (a store's one writer), for another user (a store it may not
 * write) or on standard input (`--urls-file -`).
 */

const BIN = fromRoot('dist/bin/webkrab.js')

export interface Exit { code: number | null, signal: NodeJS.Signals | null, stdout: string, stderr: string }

export interface WebkrabOptions {
  cwd?: string
  /** Run as this user and group (root only). */
  uid?: number
  gid?: number
  /** Written to standard input, which is then closed. */
  stdin?: string
  /** Killed (SIGKILL) if still running after this long: for a rule against hanging. */
  killAfterMs?: number
}

export interface RunningWebkrab {
  child: ChildProcess
  exited: Promise<Exit>
}

export function startWebkrab (args: string[], options: WebkrabOptions = {}): RunningWebkrab {
  // as another user, through env -i: the test runner adds its own hooks to a child's environment
  // (NODE_OPTIONS), and they would write where that user may not
  const [command, argv] = options.uid === undefined
    ? [process.execPath, [BIN, ...args]]
    : ['/usr/bin/env', ['-i', `PATH=${process.env.PATH ?? '/usr/bin:/bin'}`, 'HOME=/tmp', 'NO_COLOR=1', process.execPath, BIN, ...args]]
  const child = spawn(command, argv, {
    cwd: options.cwd,
    env: { ...process.env, NO_COLOR: '1' },
    uid: options.uid,
    gid: options.gid,
    stdio: ['pipe', 'pipe', 'pipe']
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.setEncoding('utf8').on('data', (c: string) => { stdout += c })
  child.stderr?.setEncoding('utf8').on('data', (c: string) => { stderr += c })
  child.stdin?.end(options.stdin ?? '')
  const timer = options.killAfterMs === undefined ? undefined : setTimeout(() => { child.kill('SIGKILL') }, options.killAfterMs)
  const exited = new Promise<Exit>((resolve, reject) => {
    child.on('error', reject)
    child.on('close', (code, signal) => {
      clearTimeout(timer)
      resolve({ code, signal, stdout, stderr })
    })
  })
  return { child, exited }
}

export async function runWebkrab (args: string[], options: WebkrabOptions = {}): Promise<Exit> {
  return await startWebkrab(args, options).exited
}
