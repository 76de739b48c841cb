/**
 * How late a time stamp taken on this event loop could be.
 *
 * The journal stamps a request when the loop runs the callback that read it, and
 * a response when the loop runs the callback that saw it end. On a busy loop (the
 * conformance harness runs several sites, their crawlers' output and the grading
 * in one process) that callback can run well after the bytes reached the socket,
 * so a stamp is a moment *no earlier* than the event, never the event itself.
 *
 * A ticker runs every millisecond while anyone holds it, and the loop turns in
 * a fixed order: its timers (the tick among them), then a poll of its sockets,
 * whose callbacks take the stamps. Bytes that had arrived before the previous
 * turn's poll would have been read in that turn, so an event stamped now happened
 * no earlier than the tick before the latest one: `latenessBound()` is the time
 * since that tick. On a quiet loop that is one to two milliseconds (the timers'
 * resolution); on a loop kept busy by someone else's callback, or by a machine too
 * busy to run it, as long as that lasted. It assumes nothing about how promptly the
 * thread is woken, so it holds on a loaded machine too. (The loop's idle time would
 * not do: a poll that finds bytes already waiting still counts a few microseconds
 * of wait.) A grader widens nothing with it silently: it uses the bound to tell a
 * measurement it can stand behind from one it cannot.
 */

const TICK_MS = 1

let holders = 0
let timer: NodeJS.Timeout | null = null
/** The latest tick and the one before it (performance.now()). */
let last = 0
let previous = 0

function tick (): void {
  previous = last
  last = performance.now()
}

/** Starts measuring (counted: every acquire needs its release). The timer never keeps the process alive. */
export function acquireLateness (): () => void {
  holders++
  if (timer === null) {
    last = previous = performance.now()
    timer = setInterval(tick, TICK_MS)
    timer.unref()
  }
  let released = false
  return () => {
    if (released) return
    released = true
    holders--
    if (holders === 0 && timer !== null) {
      clearInterval(timer)
      timer = null
    }
  }
}

/** Whether the ticker is running. */
export function measuringLateness (): boolean {
  return timer !== null
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
