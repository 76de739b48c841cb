/**
 * How late a time stamp taken on this event loop could be.
 *
 * The journal stamps a request when the loop runs the callback that read it, and
 * a response when the loop runs the callback that saw it end. On a busy loop (the
 * conformance harness runs several sites, their crawlers' output and the grading
 * in one process) that callback can run well after the bytes reached the socket,
 * so a stamp is a moment *no earlier* than the event, never the event itself.
 *
 * A ticker marks moments the loop was free, and the loop turns in a fixed order:
 * timers, a poll of its sockets (whose callbacks take the stamps), then its
 * `setImmediate` callbacks, where every mark is taken. Bytes that had arrived
 * before the previous turn's poll would have been read in that turn, and that
 * poll came after the mark before the latest one: so an event stamped now happened
 * no earlier than the mark before the latest, and `latenessBound()` is the time
 * since it. It assumes nothing about how promptly the thread is woken, so it holds
 * on a loaded machine too. (The loop's idle time would not do: a poll that finds
 * bytes already waiting still counts a few microseconds of wait.)
 *
 * Marks come every millisecond (the timers' resolution), so on a quiet loop the
 * bound is one to two milliseconds; on a loop kept busy by someone else's callback,
 * or a machine too busy to run it, as long as that lasted. Where a moment matters
 * more finely (a request expected just after a response ends, or when a Retry-After
 * runs out), a holder that asked for precision has the loop spin for a few
 * milliseconds around it (`spinFor`, `spinAt`): a mark every turn, a bound of
 * microseconds. A grader widens nothing with the bound silently: it uses it to tell
 * a measurement it can stand behind from one it cannot.
 */

const TICK_MS = 1
/** No window spins longer than this, nor is set further ahead: a site cannot be made to burn a core. */
const MAX_SPIN_MS = 100
const MAX_SPIN_DELAY_MS = 120_000

let holders = 0
/** Holders that asked for precision: only they make the loop spin. */
let precise = 0
/** Delays after a request's arrival or its response's end at which a later request is expected (a scenario's gaps). */
let watched: number[] = []
let timer: NodeJS.Timeout | null = null
let spinUntil = 0
let spinning = false
/** The latest tick and the one before it (performance.now()). */
let last = 0
let previous = 0

/** A mark, always taken in the loop's check phase (setImmediate), after its poll. */
function mark (): void {
  previous = last
  last = performance.now()
}

function markSoon (): void {
  setImmediate(mark)
}

function spin (): void {
  mark()
  if (timer !== null && precise > 0 && performance.now() < spinUntil) setImmediate(spin)
  else spinning = false
}

/**
 * Starts measuring (counted: every acquire needs its release). The timer never keeps
 * the process alive. With `precise`, the holder may ask the loop to spin (spinFor, spinAt).
 */
export function acquireLateness (options: { precise?: boolean, watchMs?: number[] } = {}): () => void {
  holders++
  const isPrecise = options.precise === true
  if (isPrecise) {
    precise++
    watched = [...new Set([...watched, ...(options.watchMs ?? []).filter(ms => Number.isFinite(ms) && ms > 0)])].slice(0, 8)
  }
  if (timer === null) {
    last = previous = performance.now()
    timer = setInterval(markSoon, TICK_MS)
    timer.unref()
  }
  let released = false
  return () => {
    if (released) return
    released = true
    holders--
    if (isPrecise) {
      precise--
      if (precise === 0) watched = []
    }
    if (holders === 0 && timer !== null) {
      clearInterval(timer)
      timer = null
    }
  }
}

/** Marks every turn of the loop for the next `ms` (when a holder asked for precision): for a moment that matters finely. */
export function spinFor (ms: number): void {
  if (timer === null || precise === 0) return
  spinUntil = Math.max(spinUntil, performance.now() + Math.min(ms, MAX_SPIN_MS))
  if (!spinning) {
    spinning = true
    setImmediate(spin)
  }
}

/** Spins for `ms` starting `delayMs` from now (a little before a moment expected then). */
export function spinAt (delayMs: number, ms: number): void {
  if (timer === null || precise === 0 || !Number.isFinite(delayMs) || delayMs > MAX_SPIN_DELAY_MS) return
  if (delayMs <= 0) {
    spinFor(ms + delayMs)
    return
  }
  setTimeout(() => { spinFor(ms) }, delayMs).unref()
}

/**
 * How many ms earlier than `now` the event being stamped may have happened, or
 * null when nobody is measuring. Call it in the same callback that takes the stamp.
 */
export function latenessBound (now = performance.now()): number | null {
  if (timer === null) return null
  // the ticker itself runs on the loop: before its second tick there is no earlier turn to point to
  const bound = Math.max(0, now - previous)
  // rounded up, so the bound is never smaller than what was measured
  return Math.ceil(bound * 10) / 10
}

/** How long the loop spins after a response ends: a crawler that sends its next request at once does so within it. */
const AFTER_END_SPIN_MS = 3
/** A window around a moment a request is expected: from a little before to a little after. */
const EARLY_MS = 5
const WINDOW_MS = 25

/** Whether a holder asked for precision (so a caller can skip the work of noting moments). */
export function precisionWanted (): boolean {
  return precise > 0
}

/** A request arrived: a later one may be expected a watched delay after it. */
export function noteArrival (): void {
  if (precise === 0) return
  for (const ms of watched) spinAt(ms - EARLY_MS, WINDOW_MS)
}

/** A response ended, asking for `retryAfterMs` (or not): the next request may come at once, or when the wait runs out. */
export function noteEnd (retryAfterMs: number | null): void {
  if (precise === 0) return
  spinFor(AFTER_END_SPIN_MS)
  if (retryAfterMs !== null) spinAt(retryAfterMs - EARLY_MS, WINDOW_MS)
  for (const ms of watched) spinAt(ms - EARLY_MS, WINDOW_MS)
}

let order = 0

/**
 * The next number in the order this thread's loop saw events in. Two events read
 * off sockets (a request arriving, a client closing its connection) are seen in the
 * order they happened: the kernel queues ready sockets first come, first served, and
 * the loop handles them in that order, so a later number is a later event even when
 * both stamps fall within each other's lateness.
 */
export function nextOrder (): number {
  return ++order
}
