import { Worker, type WorkerOptions } from 'node:worker_threads'

/**
 * A thread running the module at `url`, under the process's Node.js options as they are.
 *
 * The thread is given one line to run, the module's import, rather than the module's file:
 * Node.js refuses to start a thread that runs a file under `--input-type` (an option for a
 * program given as a string: `node --input-type=module -e …`, or one on stdin), and a
 * thread handed options of its own (`execArgv`) may not take V8's (`--max-old-space-size`,
 * `--cpu-prof`'s kin), so leaving out the one that fails would refuse others. A line to run
 * is a program given as a string, which every option allows. A module that fails to load
 * ends the thread with its own error, as a file that failed to load would, whatever
 * `--unhandled-rejections` says: the failure is thrown, not left a rejected promise.
 */
export function fileThread (url: URL, options: WorkerOptions = {}): Worker {
  const line = `import(${JSON.stringify(url.href)}).catch(err => { setImmediate(() => { throw err }) })`
  return new Worker(line, { ...options, eval: true })
}
