import { randomBytes } from 'node:crypto'
import { appendFileSync, mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

/**
 * What a crawler under test may leave running, and what a killed harness leaves on disk.
 *
 * Every command the harness starts carries `WEBKRAB_HARNESS_RUN=<this run>` and
 * `WEBKRAB_HARNESS_SPAWN=<this command>` in its environment, and so does everything it starts
 * in turn, whatever process group or session it moves to (`setsid`): the marks are how the
 * harness finds them again (Linux's /proc/PID/environ) to end them when the step ends, when
 * the run ends, and when a later run finds a run that was killed before it could.
 *
 * A run leaves a file in `<tmpdir>/webkrab-harness/` naming its pid, its mark and its temporary
 * folders; a later run that finds the file of a pid no longer alive ends what carries that
 * run's mark and removes those folders.
 */

export const RUN_MARK = 'WEBKRAB_HARNESS_RUN'
export const SPAWN_MARK = 'WEBKRAB_HARNESS_SPAWN'

/** This run's mark. */
export const RUN_ID = randomBytes(9).toString('base64url')

/** A mark for one command. */
export function spawnId (): string {
  return randomBytes(9).toString('base64url')
}

/** Pids of processes whose environment holds `NAME=value` (only processes this user may read; none where /proc is absent). */
export function pidsMarked (name: string, value: string): number[] {
  const needle = Buffer.from(`${name}=${value}\0`)
  let entries: string[]
  try {
    entries = readdirSync('/proc')
  } catch {
    return []
  }
  const out: number[] = []
  for (const entry of entries) {
    if (!/^\d+$/.test(entry) || Number(entry) === process.pid) continue
    try {
      const env = readFileSync(`/proc/${entry}/environ`)
      if (env.includes(needle)) out.push(Number(entry))
    } catch {}
  }
  return out
}

/** Ends (SIGKILL) every process that carries the mark; how many there were. For an exit handler, which cannot wait. */
export function endMarked (name: string, value: string): number {
  const pids = pidsMarked(name, value)
  for (const pid of pids) {
    try { process.kill(pid, 'SIGKILL') } catch {}
  }
  return pids.length
}

/** How long endMarkedAndGone waits for what it killed to be gone (a loaded machine takes a moment to end a process). */
const END_WAIT_MS = 2_000

/** A process's group (the fifth field of /proc/PID/stat), or null when it cannot be read. */
function processGroupOf (pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    // the command name, in parentheses, may hold spaces: the fields after its closing parenthesis are plain
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return Number(fields[2])
  } catch {
    return null
  }
}

/**
 * Ends every process that carries the mark and waits, without blocking the loop and at
 * most two seconds, until none is left, ending any one started meanwhile. Returns how
 * many of them were outside `group` (the command's own process group, which its caller
 * has killed already): those are the ones that left it.
 */
export async function endMarkedAndGone (name: string, value: string, group: number | null): Promise<number> {
  const escaped = new Set<number>()
  const deadline = Date.now() + END_WAIT_MS
  for (let pids = pidsMarked(name, value); pids.length > 0 && Date.now() < deadline; pids = pidsMarked(name, value)) {
    for (const pid of pids) {
      if (group === null || processGroupOf(pid) !== group) escaped.add(pid)
      try { process.kill(pid, 'SIGKILL') } catch {}
    }
    // a killed process keeps its environment until it is gone (then /proc shows it empty, or not at all)
    await new Promise(resolve => setTimeout(resolve, 10))
  }
  return escaped.size
}

const DIR = join(tmpdir(), 'webkrab-harness')
let registered = false

function fileOf (pid: number): string {
  return join(DIR, `run-${pid}.txt`)
}

function alive (pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Notes this run (its pid and mark) for a later run to find if this one is killed, and first
 * ends what runs killed earlier left: their marked processes, their temporary folders. Once per
 * process; the note goes when the process exits normally.
 */
export function registerRun (): void {
  if (registered) return
  registered = true
  try {
    mkdirSync(DIR, { recursive: true })
    for (const name of readdirSync(DIR)) {
      const m = /^run-(\d+)\.txt$/.exec(name)
      if (m === null || alive(Number(m[1]))) continue
      cleanUp(join(DIR, name))
    }
    appendFileSync(fileOf(process.pid), `mark ${RUN_ID}\n`)
    process.once('exit', () => { try { rmSync(fileOf(process.pid), { force: true }) } catch {} })
  } catch {}
}

/** A temporary folder of this run, removed by a later run if this one is killed. */
export function noteTemporaryFolder (path: string): void {
  registerRun()
  try { appendFileSync(fileOf(process.pid), `folder ${path}\n`) } catch {}
}

function cleanUp (file: string): void {
  let text = ''
  try { text = readFileSync(file, 'utf8') } catch {}
  for (const line of text.split('\n')) {
    const [kind, value] = [line.slice(0, line.indexOf(' ')), line.slice(line.indexOf(' ') + 1)]
    if (kind === 'mark' && /^[\w-]+$/.test(value)) endMarked(RUN_MARK, value)
    // only folders this harness makes, in the temporary folder
    if (kind === 'folder' && value.startsWith(join(tmpdir(), 'webkrab-'))) {
      try { rmSync(value, { recursive: true, force: true }) } catch {}
    }
  }
  try { rmSync(file, { force: true }) } catch {}
}
