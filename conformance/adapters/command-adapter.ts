import { spawn } from 'node:child_process'
import { endMarked, endMarkedAndGone, registerRun, RUN_ID, RUN_MARK, SPAWN_MARK, spawnId } from './run-leftovers.js'
import { NotRegularFileError, readRegularFile } from '../../common/regular-file.js'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { errors } from '../../common/errors.js'
import { openLoaded, parseReport, reportProblems, wholeReport } from '../../reports/load-report.js'
import type { FetchReport } from '../../reports/report-types.js'
import { accepted, type Accepts, type CommandRun, type CrawlerAdapter, type ExpectedFailure, type StepOutcome, type StepRequest } from './adapter-types.js'
import { binPath, faketimeEnv, findFaketime, type Faketime } from './child-env.js'

export const PLACEHOLDERS = ['url', 'urls', 'state', 'step', 'options', 'headers', 'ca'] as const

const OUTPUT_TAIL = 4096

/** Quotes a value for `sh -c`: single quotes, with embedded ones closed and escaped. */
export function shellQuote (value: string): string {
  return /^[A-Za-z0-9_./:=@%+,-]+$/.test(value) ? value : `'${value.replace(/'/g, `'\\''`)}'`
}

/** Crawl options as `webkrab crawl` flags: `--max-duration 5s --retain none --scope URL URL`. */
export function optionsAsFlags (options: StepRequest['options']): string[] {
  const out: string[] = []
  for (const [name, value] of Object.entries(options)) {
    if (value === false) continue
    out.push(`--${name}`)
    if (value === true) continue
    if (Array.isArray(value)) out.push(...value)
    else out.push(String(value))
  }
  return out
}

/** Request context as `webkrab crawl` flags: `--header 'Accept-Language: fr'` per header. */
export function headersAsFlags (headers: Record<string, string>): string[] {
  return Object.entries(headers).flatMap(([k, v]) => ['--header', `${k}: ${v}`])
}

/**
 * The same values for shell scripts that cannot read JSON: the request context
 * as `Name: value` lines (what `curl -H @file` reads), and each option as
 * WEBKRAB_OPT_<FLAG> (`WEBKRAB_OPT_MAX_DURATION=3s`, lists space-separated).
 */
export function shellEnv (req: StepRequest): Record<string, string> {
  const env: Record<string, string> = {
    WEBKRAB_HEADER_LINES: Object.entries(req.headers).map(([k, v]) => `${k}: ${v}\n`).join('')
  }
  for (const [name, value] of Object.entries(req.options)) {
    env[`WEBKRAB_OPT_${name.toUpperCase().replace(/-/g, '_')}`] = Array.isArray(value) ? value.join(' ') : String(value)
  }
  return env
}

/**
 * Where each placeholder of a template stands: bare, or inside single or double
 * quotes. A value the harness fills in is shell-quoted for a bare word; inside
 * quotes that quoting means nothing (in double quotes `$(...)` still runs), so a
 * scenario's URL could run shell code. Backslash escapes and quotes are followed
 * as sh reads them.
 */
export function placeholderContexts (template: string): Array<{ name: string, at: number, quoted: 'none' | 'single' | 'double' }> {
  const out: Array<{ name: string, at: number, quoted: 'none' | 'single' | 'double' }> = []
  let quote: 'none' | 'single' | 'double' = 'none'
  for (let i = 0; i < template.length; i++) {
    const c = template[i]
    if (quote !== 'single' && c === '\\') { i++; continue }
    if (quote !== 'double' && c === "'") { quote = quote === 'single' ? 'none' : 'single'; continue }
    if (quote !== 'single' && c === '"') { quote = quote === 'double' ? 'none' : 'double'; continue }
    if (c !== '{') continue
    const m = /^\{([a-z_-]+)\}/.exec(template.slice(i, i + 40))
    if (m === null) continue
    out.push({ name: m[1], at: i, quoted: quote })
    i += m[0].length - 1
  }
  return out
}

/**
 * Checks a template names only known placeholders, at most one of {url} and
 * {urls}, and none inside quotes: the harness quotes every value itself, and a
 * quoted placeholder would let a URL such as `/x?a=$(touch pwned)` run as shell
 * code.
 */
export function checkTemplate (template: string, where: string): void {
  if (template.trim() === '') throw errors.WEBKRAB_ERR_BAD_ADAPTER(`${where}: the command is empty`)
  for (const p of placeholderContexts(template)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(p.name)) {
      throw errors.WEBKRAB_ERR_BAD_ADAPTER(`${where}: unknown placeholder {${p.name}} (known: ${PLACEHOLDERS.map(x => `{${x}}`).join(', ')})`)
    }
    if (p.quoted !== 'none') {
      throw errors.WEBKRAB_ERR_BAD_ADAPTER(`${where}: {${p.name}} stands inside ${p.quoted} quotes; write it bare (the harness quotes each value itself), since inside quotes a URL's $(...) or backquotes would run as shell code`)
    }
  }
  if (template.includes('{url}') && template.includes('{urls}')) {
    throw errors.WEBKRAB_ERR_BAD_ADAPTER(`${where}: use {url} (one run per URL) or {urls} (one run), not both`)
  }
}

/** Fills the placeholders of a template, each value shell-quoted. */
export function renderTemplate (template: string, req: StepRequest, url: string | null): string {
  return template.replace(/\{(url|urls|state|step|options|headers|ca)\}/g, (_, name: string) => {
    switch (name) {
      case 'ca': return shellQuote(req.ca ?? '')
      case 'url': return shellQuote(url ?? req.urls[0])
      case 'urls': return req.urls.map(shellQuote).join(' ')
      case 'state': return shellQuote(req.stateDir)
      case 'step': return String(req.step)
      case 'headers': return headersAsFlags(req.headers).map(shellQuote).join(' ')
      default: return optionsAsFlags(req.options).map(shellQuote).join(' ')
    }
  })
}

/**
 * What a template hands the crawler, when no adapter file says: every option
 * with {options}, the request context with {headers}, state with {state}. A
 * script can read the same from WEBKRAB_OPTIONS and WEBKRAB_HEADERS, but only
 * an adapter file can say that it does (`accepts:`).
 */
export function acceptsOfTemplate (template: string): Accepts {
  return {
    options: template.includes('{options}') ? 'all' : [],
    headers: template.includes('{headers}'),
    state: template.includes('{state}'),
    clock: 'faketime',
    reports: false,
    ca: template.includes('{ca}')
  }
}

/** Process groups of crawler commands still running: ended with the harness, so none outlives a run that was stopped. */
const live = new Set<number>()
let reaper = false

function killLive (): void {
  for (const pid of live) {
    try { process.kill(-pid, 'SIGKILL') } catch {}
  }
  live.clear()
  // and whatever they started that left their process group (setsid): it carries this run's mark
  endMarked(RUN_MARK, RUN_ID)
}

/** How long a command's output is read once it has exited or been killed: a process it left behind may hold the pipe open. */
const OUTPUT_GRACE_MS = 500

function runShell (command: string, env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number, url: string | null): Promise<CommandRun> {
  if (!reaper) {
    reaper = true
    registerRun()
    // at exit, a SIGINT's or SIGTERM's included (the conformance command stops on them and exits)
    process.once('exit', killLive)
  }
  return new Promise(resolve => {
    const t0 = performance.now()
    let stdout = ''
    let stderr = ''
    let timedOut = false
    let finished = false
    const mark = spawnId()
    // detached: the command gets its own process group, so a timeout ends it and its children; the marks find those that leave it
    const child = spawn('/bin/sh', ['-c', command], { cwd, env: { ...env, [RUN_MARK]: RUN_ID, [SPAWN_MARK]: mark }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    if (child.pid !== undefined) live.add(child.pid)
    child.stdout.on('data', (chunk: Buffer) => { stdout = (stdout + chunk.toString('utf8')).slice(-OUTPUT_TAIL) })
    child.stderr.on('data', (chunk: Buffer) => { stderr = (stderr + chunk.toString('utf8')).slice(-OUTPUT_TAIL) })
    let grace: NodeJS.Timeout | null = null
    const done = (exitCode: number | null, error: string | null): void => {
      if (finished) return
      finished = true
      clearTimeout(timer)
      if (grace !== null) clearTimeout(grace)
      if (child.pid !== undefined) live.delete(child.pid)
      // the step is over for everything the command started, in its process group or not
      try { process.kill(-(child.pid ?? 0), 'SIGKILL') } catch {}
      child.stdout.destroy()
      child.stderr.destroy()
      const durationMs = Math.round(performance.now() - t0)
      void endMarkedAndGone(SPAWN_MARK, mark, child.pid ?? null).then(left => {
        const note = left > 0 ? `${error === null ? '' : `${error}; `}left ${left} process${left === 1 ? '' : 'es'} running outside its process group, ended` : error
        resolve({ command, url, exitCode, timedOut, error: note, stdout, stderr, durationMs })
      })
    }
    const killed = (): string => `did not finish within ${timeoutMs} ms and was killed`
    const timer = setTimeout(() => {
      timedOut = true
      try { process.kill(-(child.pid ?? 0), 'SIGKILL') } catch { child.kill('SIGKILL') }
      // a process that left the group may hold the output open: stop waiting for it
      grace = setTimeout(() => { done(null, killed()) }, OUTPUT_GRACE_MS)
    }, timeoutMs)
    child.on('error', err => { done(null, `could not start: ${err.message}`) })
    // the command itself has ended: read what is left of its output for a moment, no longer
    child.on('exit', (code) => {
      if (grace === null) grace = setTimeout(() => { done(code, timedOut ? killed() : null) }, OUTPUT_GRACE_MS)
    })
    child.on('close', (code) => { done(code, timedOut ? killed() : null) })
  })
}

/**
 * Per-URL runs, as concurrently as the step allows: at most `concurrency` at once
 * and `per-origin-concurrency` per origin (the reference crawler's defaults, 8
 * and 2, when the step sets neither). Every URL is run whatever happens to the
 * others, each with its own timeout.
 */
export async function runPerUrl (urls: string[], options: StepRequest['options'], run: (url: string) => Promise<CommandRun>): Promise<CommandRun[]> {
  const total = positive(options.concurrency, DEFAULT_CONCURRENCY)
  const perOrigin = positive(options['per-origin-concurrency'], DEFAULT_PER_ORIGIN_CONCURRENCY)
  const results: CommandRun[] = new Array(urls.length)
  const busy = new Map<string, number>()
  const pending = urls.map((url, i) => ({ url, i, origin: originOf(url) }))
  let running = 0
  await new Promise<void>(resolve => {
    const pump = (): void => {
      if (pending.length === 0 && running === 0) { resolve(); return }
      for (let k = 0; k < pending.length && running < total; k++) {
        const job = pending[k]
        if ((busy.get(job.origin) ?? 0) >= perOrigin) continue
        pending.splice(k--, 1)
        running++
        busy.set(job.origin, (busy.get(job.origin) ?? 0) + 1)
        void run(job.url).then(r => {
          results[job.i] = r
          running--
          busy.set(job.origin, (busy.get(job.origin) ?? 1) - 1)
          pump()
        })
      }
    }
    pump()
  })
  return results
}

const DEFAULT_CONCURRENCY = 8
const DEFAULT_PER_ORIGIN_CONCURRENCY = 2

function positive (v: unknown, fallback: number): number {
  const n = Number(v)
  return Number.isSafeInteger(n) && n > 0 ? n : fallback
}

function originOf (url: string): string {
  try { return new URL(url).origin } catch { return url }
}

/** The largest report file a step's crawler may write: a summary, or a whole report of a scenario's few requests, is far smaller. */
export const MAX_STEP_REPORT_BYTES = 64 * 1024 * 1024

/** At most this many of a bad report's problems are listed; the rest are counted. */
const MAX_REPORT_PROBLEMS = 20

/**
 * Reads `{state}/report-{step}.json` if the crawler wrote one, in either form (a
 * split report's NDJSON parts are read beside it, each line checked). A report that is
 * not a valid webkrab.report/v1 gives every problem once (up to twenty, then a
 * count), not just the first; a bad line of a part is named as `FILE:LINE`.
 */
export async function readStepReport (stateDir: string, step: number): Promise<Pick<StepOutcome, 'report' | 'reportError'>> {
  const path = join(stateDir, `report-${step}.json`)
  if (!existsSync(path)) return { report: null, reportError: null }
  let text: string
  let summary: FetchReport
  try {
    // the crawler made this file: read it only as a regular file of bounded size (a FIFO or /dev/zero would hang or fill the harness)
    text = readRegularFile(path, MAX_STEP_REPORT_BYTES)
  } catch (err) {
    return { report: null, reportError: `${path} cannot be read as a report: ${err instanceof NotRegularFileError ? err.message.slice(path.length + 1) : (err as NodeJS.ErrnoException).code ?? (err as Error).message}` }
  }
  try {
    summary = parseReport(text, path)
  } catch (err) {
    let problems: string[]
    try {
      problems = reportProblems(text)
    } catch {
      problems = [(err as Error).message]
    }
    const shown = problems.slice(0, MAX_REPORT_PROBLEMS).join('; ')
    const more = problems.length > MAX_REPORT_PROBLEMS ? `; and ${problems.length - MAX_REPORT_PROBLEMS} more` : ''
    return { report: null, reportError: `${path} is not a webkrab.report/v1 (${problems.length} problem${problems.length === 1 ? '' : 's'}): ${shown}${more}` }
  }
  try {
    return { report: await wholeReport(openLoaded(summary, path, stateDir), STEP_REPORT_ENTRIES), reportError: null }
  } catch (err) {
    return { report: null, reportError: `${path} is not a webkrab.report/v1: ${(err as Error).message}` }
  }
}

/**
 * The most resources or exchanges a step's report may have for its assertions to be
 * graded: a scenario's run is small, and its report is looked into by path, in memory.
 */
export const STEP_REPORT_ENTRIES = 100_000

export interface CommandAdapterOptions {
  name?: string
  command: string
  timeoutMs?: number
  skip?: Map<string, string>
  expectedFailures?: ExpectedFailure[]
  /** Where the command runs (the adapter file's folder); the current directory by default. */
  cwd?: string
  source?: string | null
  /** What the crawler is handed; by default what the template's placeholders pass. */
  accepts?: Accepts
  /** How to move the crawler's clock with the site's (libfaketime), when found. */
  faketime?: Faketime | null
}

/**
 * Over TLS, the CA the site's certificates are signed by, in the variables crawlers and their
 * libraries read it from: OpenSSL (SSL_CERT_FILE), curl, Python's requests, Node.js; WEBKRAB_CA
 * for an adapter script. SSL_CERT_FILE replaces the system's CAs: the run's sites need no other.
 */
export function caEnv (ca: string | null): NodeJS.ProcessEnv {
  if (ca === null) return {}
  return { WEBKRAB_CA: ca, SSL_CERT_FILE: ca, CURL_CA_BUNDLE: ca, REQUESTS_CA_BUNDLE: ca, NODE_EXTRA_CA_CERTS: ca }
}

/** The tail of a run's output for notes: stderr, then stdout. */
export function outputOf (runs: CommandRun[]): string {
  return runs.map(r => r.stderr + r.stdout).join('').slice(-OUTPUT_TAIL)
}

/**
 * Drives any crawler through a shell command. `{url}` runs the command once per
 * URL (as concurrently as the step allows); otherwise once per step. The
 * environment carries the same values (WEBKRAB_URLS, WEBKRAB_STATE_DIR,
 * WEBKRAB_STEP, WEBKRAB_HEADERS as JSON, WEBKRAB_OPTIONS as JSON, and WEBKRAB_URL
 * in per-URL runs). When the site's clock has been moved, the command runs under
 * libfaketime moved by as much.
 */
export function commandAdapter (opts: CommandAdapterOptions): CrawlerAdapter {
  checkTemplate(opts.command, opts.source ?? '--crawler')
  const perUrl = opts.command.includes('{url}')
  const cwd = opts.cwd ?? process.cwd()
  const faketime = opts.faketime === undefined ? findFaketime() : opts.faketime
  const accepts = opts.accepts ?? acceptsOfTemplate(opts.command)
  return {
    name: opts.name ?? 'command',
    kind: 'command',
    describe: opts.command,
    skip: opts.skip ?? new Map(),
    expectedFailures: opts.expectedFailures ?? [],
    source: opts.source ?? null,
    timeoutMs: opts.timeoutMs ?? null,
    accepts,
    perUrl,
    faketime,
    crawl: async (given) => {
      // the crawler is handed exactly what its adapter says it takes: an option it does not map
      // could otherwise be read as something else (--scope ORIGIN ORIGIN as two more URLs)
      const req: StepRequest = {
        ...given,
        options: Object.fromEntries(Object.entries(given.options).filter(([name]) => accepted(accepts, name))),
        headers: accepts.headers ? given.headers : {}
      }
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        ...binPath(process.env),
        WEBKRAB_URLS: req.urls.join(' '),
        WEBKRAB_STATE_DIR: req.stateDir,
        WEBKRAB_STEP: String(req.step),
        WEBKRAB_HEADERS: JSON.stringify(req.headers),
        WEBKRAB_OPTIONS: JSON.stringify(req.options),
        WEBKRAB_SCENARIO: req.scenarioId,
        ...caEnv(req.ca ?? null),
        ...shellEnv(req),
        ...(faketime !== null && (req.clockOffsetMs ?? 0) !== 0 ? faketimeEnv(faketime, req.clockOffsetMs ?? 0, process.env) : {})
      }
      // The timeout bounds the step: with {url}, every run of the command shares it, so a crawler
      // that hangs on each URL costs the step's timeout once, not once per URL; a run whose turn
      // comes after it is not started
      const deadline = performance.now() + req.timeoutMs
      const runs = perUrl
        ? await runPerUrl(req.urls, given.options, async url => {
          const left = Math.floor(deadline - performance.now())
          const command = renderTemplate(opts.command, req, url)
          if (left <= 0) return { command, url, exitCode: null, timedOut: true, error: `not run: the step's ${req.timeoutMs} ms had passed before its turn`, stdout: '', stderr: '', durationMs: 0 }
          const r = await runShell(command, { ...env, WEBKRAB_URL: url }, cwd, left, url)
          return r.timedOut ? { ...r, error: `did not finish within the step's ${req.timeoutMs} ms and was killed` } : r
        })
        : [await runShell(renderTemplate(opts.command, req, null), env, cwd, req.timeoutMs, null)]
      const worst = runs.find(r => r.error !== null) ?? runs.find(r => r.exitCode !== 0) ?? runs[runs.length - 1]
      return {
        ...await readStepReport(req.stateDir, req.step),
        error: worst.error,
        exitCode: worst.exitCode,
        timedOut: runs.some(r => r.timedOut),
        output: outputOf(runs),
        commands: runs
      }
    }
  }
}
