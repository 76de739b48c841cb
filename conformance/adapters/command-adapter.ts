import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { errors } from '../../common/errors.js'
import { parseReport } from '../../reports/load-report.js'
import type { CrawlerAdapter, ExpectedFailure, StepOutcome, StepRequest } from './adapter-types.js'

export const PLACEHOLDERS = ['url', 'urls', 'state', 'step', 'options', 'headers'] as const

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

/** Checks a template names only known placeholders and at most one of {url} and {urls}. */
export function checkTemplate (template: string, where: string): void {
  for (const m of template.matchAll(/\{([a-z_-]+)\}/g)) {
    if (!(PLACEHOLDERS as readonly string[]).includes(m[1])) {
      throw errors.WEBKRAB_ERR_BAD_ADAPTER(`${where}: unknown placeholder {${m[1]}} (known: ${PLACEHOLDERS.map(p => `{${p}}`).join(', ')})`)
    }
  }
  if (template.includes('{url}') && template.includes('{urls}')) {
    throw errors.WEBKRAB_ERR_BAD_ADAPTER(`${where}: use {url} (one run per URL) or {urls} (one run), not both`)
  }
  if (template.trim() === '') throw errors.WEBKRAB_ERR_BAD_ADAPTER(`${where}: the command is empty`)
}

/** Fills the placeholders of a template, each value shell-quoted. */
export function renderTemplate (template: string, req: StepRequest, url: string | null): string {
  return template.replace(/\{(url|urls|state|step|options|headers)\}/g, (_, name: string) => {
    switch (name) {
      case 'url': return shellQuote(url ?? req.urls[0])
      case 'urls': return req.urls.map(shellQuote).join(' ')
      case 'state': return shellQuote(req.stateDir)
      case 'step': return String(req.step)
      case 'headers': return headersAsFlags(req.headers).map(shellQuote).join(' ')
      default: return optionsAsFlags(req.options).map(shellQuote).join(' ')
    }
  })
}

interface RunResult { exitCode: number | null, timedOut: boolean, output: string, error: string | null }

function runShell (command: string, env: NodeJS.ProcessEnv, cwd: string, timeoutMs: number): Promise<RunResult> {
  return new Promise(resolve => {
    let output = ''
    let timedOut = false
    const keep = (chunk: Buffer): void => { output = (output + chunk.toString('utf8')).slice(-OUTPUT_TAIL) }
    // detached: the command gets its own process group, so a timeout ends it and its children.
    const child = spawn('/bin/sh', ['-c', command], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
    child.stdout.on('data', keep)
    child.stderr.on('data', keep)
    const timer = setTimeout(() => {
      timedOut = true
      try { process.kill(-(child.pid ?? 0), 'SIGKILL') } catch { child.kill('SIGKILL') }
    }, timeoutMs)
    child.on('error', err => {
      clearTimeout(timer)
      resolve({ exitCode: null, timedOut, output, error: `could not start: ${err.message}` })
    })
    child.on('close', (code) => {
      clearTimeout(timer)
      resolve({ exitCode: code, timedOut, output, error: timedOut ? `did not finish within ${timeoutMs} ms and was killed` : null })
    })
  })
}

/** Reads `{state}/report-{step}.json` if the crawler wrote one. */
export function readStepReport (stateDir: string, step: number): Pick<StepOutcome, 'report' | 'reportError'> {
  const path = join(stateDir, `report-${step}.json`)
  if (!existsSync(path)) return { report: null, reportError: null }
  try {
    return { report: parseReport(readFileSync(path, 'utf8'), path), reportError: null }
  } catch (err) {
    return { report: null, reportError: (err as Error).message }
  }
}

export interface CommandAdapterOptions {
  name?: string
  command: string
  timeoutMs?: number
  skip?: Map<string, string>
  expectedFailures?: ExpectedFailure[]
  /** Where the command runs (the adapter file's folder); the current directory by default. */
  cwd?: string
  source?: string | null
}

/**
 * Drives any crawler through a shell command. `{url}` runs the command once per
 * URL; otherwise once per step. The environment carries the same values
 * (WEBKRAB_URLS, WEBKRAB_STATE_DIR, WEBKRAB_STEP, WEBKRAB_HEADERS as JSON,
 * WEBKRAB_OPTIONS as JSON, and WEBKRAB_URL in per-URL runs).
 */
export function commandAdapter (opts: CommandAdapterOptions): CrawlerAdapter {
  checkTemplate(opts.command, opts.source ?? '--crawler')
  const perUrl = opts.command.includes('{url}')
  const cwd = opts.cwd ?? process.cwd()
  return {
    name: opts.name ?? 'command',
    kind: 'command',
    describe: opts.command,
    skip: opts.skip ?? new Map(),
    expectedFailures: opts.expectedFailures ?? [],
    source: opts.source ?? null,
    timeoutMs: opts.timeoutMs ?? null,
    crawl: async (req) => {
      const env: NodeJS.ProcessEnv = {
        ...process.env,
        WEBKRAB_URLS: req.urls.join(' '),
        WEBKRAB_STATE_DIR: req.stateDir,
        WEBKRAB_STEP: String(req.step),
        WEBKRAB_HEADERS: JSON.stringify(req.headers),
        WEBKRAB_OPTIONS: JSON.stringify(req.options),
        WEBKRAB_SCENARIO: req.scenarioId,
        ...shellEnv(req)
      }
      // The timeout bounds each run of the command (each URL's, with {url}).
      const timeoutMs = req.timeoutMs
      let last: RunResult = { exitCode: 0, timedOut: false, output: '', error: null }
      let output = ''
      for (const url of perUrl ? req.urls : [null]) {
        last = await runShell(renderTemplate(opts.command, req, url), url === null ? env : { ...env, WEBKRAB_URL: url }, cwd, timeoutMs)
        output = (output + last.output).slice(-OUTPUT_TAIL)
        if (last.error !== null) break
      }
      return { ...readStepReport(req.stateDir, req.step), error: last.error, exitCode: last.exitCode, timedOut: last.timedOut, output }
    }
  }
}
