import { Worker, type WorkerOptions } from 'node:worker_threads'

/**
 * The process's Node.js options, for a thread that runs a file: all of them but
 * `--input-type`. That option says how to read a program given as a string
 * (`node --input-type=module -e …`, or one on stdin), and Node.js refuses to start a
 * thread that runs a file under it: a program run that way could start none of
 * WebKrab's threads (the store's writer, the fixture sites' host, a listener that
 * never accepts) if they took the options as they are.
 */
export function threadExecArgv (execArgv: readonly string[]): string[] {
  const out: string[] = []
  for (let i = 0; i < execArgv.length; i++) {
    if (execArgv[i] === '--input-type') i++
    else if (!execArgv[i].startsWith('--input-type=')) out.push(execArgv[i])
  }
  return out
}

/** A thread running the module at `url`, under the process's options it can take (threadExecArgv). */
export function fileThread (url: URL, options: WorkerOptions = {}): Worker {
  return new Worker(url, { ...options, execArgv: threadExecArgv(process.execArgv) })
}
