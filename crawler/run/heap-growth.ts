import { setFlagsFromString } from 'node:v8'

/**
 * How far V8 lets the heap grow past what the last full collection found live, in
 * percent, for the `webkrab crawl` process.
 *
 * A crawl allocates a great deal per page, nearly all of it short-lived, and keeps
 * little (the run's state is in the store, its report in its parts). Left to itself V8
 * chose a growth factor near its largest, several times what was live, and the
 * resident set followed the heap, with socket buffers held by that uncollected garbage
 * (undici's parser keeps each idle connection's header array, and an array that lived
 * through two young collections holds the next response's buffers until a full one).
 * At 50% the heap is collected once it has grown by half its live size: the resident
 * set falls a long way over many origins for a CPU cost within the spread of repeated
 * runs (the measured figures are in docs/crawler.md, "Over many origins").
 *
 * This is not a ceiling: the limit follows what is live, so a run that needs more
 * memory gets it, and is collected more often on the way.
 */
export const HEAP_GROWTH_PERCENT = 50

/**
 * Sets the growth for this process. Only the command does so: a program that calls
 * crawl() keeps its own collector settings. V8 reads the value at each full
 * collection, so setting it once the process runs takes effect at the next one.
 */
export function limitHeapGrowth (): void {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWTH_PERCENT}`)
}
