import { availableParallelism, cpus } from 'node:os'
import { setTimeout as sleep } from 'node:timers/promises'

/**
 * Whether the machine has room for one more scenario. Scenarios mostly wait, so
 * the suite runs more of them than there are cores; but a crawler that computes
 * (a Python or Node runtime starting for every step, a browser) takes a core
 * while it runs, and more of those than cores makes each one slower, which a
 * scenario with a step timeout or a budget would see as the crawler's doing. So up
 * to two scenarios per core always run (each mostly waits); past that, another
 * starts only while the machine's cores were idle for at least `idleShare` (a
 * fifth) of the last sample, and no more than one per sample, so the load a start
 * brings is seen before the next.
 */
export interface CpuGate {
  /** Whether a scenario may start now, with `running` already running. */
  mayStart: (running: number) => boolean
  /** A scenario started (past the floor of two per core, starts are spaced by a sample). */
  started: (running: number) => void
  /** A scenario ended (a gate shared by several suites counts them all). */
  finished: () => void
  /**
   * Runs `fn` with nothing else running (a gate shared by several suites): no scenario starts
   * while it waits for the others to end, nor while it runs. Absent: the suite's own pool is all
   * there is, and it has drained.
   */
  exclusive?: <T>(fn: () => Promise<T>) => Promise<T>
  /**
   * Runs other work beside the scenarios (a day of a crawler's economy): it takes no scenario's
   * room, but it does not start while an exclusive turn waits or runs, and such a turn waits for it.
   */
  counted?: <T>(fn: () => Promise<T>) => Promise<T>
  /** How long until mayStart may answer differently (the next sample), ms. */
  readonly sampleMs: number
  stop: () => void
}

export interface CpuGateOptions {
  /** Scenarios that always run, whatever the load (default two per core). */
  floor?: number
  sampleMs?: number
  idleShare?: number
  /** Reads the machine's cumulative idle and total CPU time (ms); os.cpus() by default. */
  read?: () => { idle: number, total: number }
  now?: () => number
}

function readCpus (): { idle: number, total: number } {
  let idle = 0
  let total = 0
  for (const c of cpus()) {
    idle += c.times.idle
    total += c.times.user + c.times.nice + c.times.sys + c.times.irq + c.times.idle
  }
  return { idle, total }
}

/**
 * One gate for several suites run at once (`npm run scorecard` grades the shipped crawlers side
 * by side): it counts the scenarios of all of them, so the floor of two per core, the room past
 * it and the `limit` of scenarios at once are the machine's, not each suite's.
 */
export function sharedGate (gate: CpuGate = cpuGate(), limit = Number.POSITIVE_INFINITY): CpuGate {
  let running = 0
  // other work (the economy's days): waited for by an exclusive turn, but taking no scenario's room
  let others = 0
  // exclusive turns asked for and not yet done: while any is, nothing else starts
  let turns: Promise<unknown> = Promise.resolve()
  let wanted = 0
  return {
    sampleMs: gate.sampleMs,
    mayStart: () => wanted === 0 && running < limit && gate.mayStart(running),
    started: () => { running++; gate.started(running) },
    finished: () => { running = Math.max(0, running - 1) },
    exclusive: async <T>(fn: () => Promise<T>): Promise<T> => {
      wanted++
      const mine = turns.then(async () => {
        while (running > 0 || others > 0) await sleep(gate.sampleMs)
        return await fn()
      })
      turns = mine.catch(() => {})
      try {
        return await mine
      } finally {
        wanted--
      }
    },
    counted: async <T>(fn: () => Promise<T>): Promise<T> => {
      while (wanted > 0) await sleep(gate.sampleMs)
      others++
      try {
        return await fn()
      } finally {
        others = Math.max(0, others - 1)
      }
    },
    stop: () => { gate.stop() }
  }
}

export function cpuGate (options: CpuGateOptions = {}): CpuGate {
  const floor = Math.max(1, options.floor ?? 2 * availableParallelism())
  const sampleMs = options.sampleMs ?? 250
  const idleShare = options.idleShare ?? 0.2
  const read = options.read ?? readCpus
  const now = options.now ?? (() => performance.now())
  let last = read()
  // until the first sample is in, the machine is taken as busy: the floor runs meanwhile
  let idle = 0
  let lastExtraStart = Number.NEGATIVE_INFINITY
  const timer = setInterval(() => {
    const t = read()
    const total = t.total - last.total
    idle = total > 0 ? (t.idle - last.idle) / total : idle
    last = t
  }, sampleMs)
  timer.unref()
  return {
    sampleMs,
    mayStart: (running) => running < floor || (idle >= idleShare && now() - lastExtraStart >= sampleMs),
    started: (running) => { if (running > floor) lastExtraStart = now() },
    finished: () => {},
    stop: () => { clearInterval(timer) }
  }
}
