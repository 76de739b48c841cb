// The crawler benchmark's results: what the run (bench/crawler.ts) fills in, and what
// its page and headline read. Apart from the run so that the headline, which the run
// imports, need not import it back.

/**
 * Distinct URLs a round fetches by default: a list long enough to be written from the
 * store's writer thread (crawler/run/crawl.ts WRITER_THREAD_SEEDS), as a crawl of that
 * length is, and a round long enough to stand out of a shared machine's noise.
 */
export const CRAWLER_BENCH_PAGES = 2000

/**
 * Pages each side of `bench crawler` fetches in warm-up rounds before the measured ones,
 * unless told how many rounds: eight crawls of the default list (V8 goes on optimizing the
 * crawler's code, its writer thread's included, into the sixth and seventh).
 */
export const WARM_PAGES = 16_000

export interface CrawlerSideFigures {
  pagesPerSecond: number
  elapsedMs: number
  /**
   * CPU time this process spent per page while the side ran (user and system, every
   * thread; the fixture site runs in its own process and is not counted). Steadier
   * than pages per second on a busy machine: it says what each page costs the client.
   */
  cpuMicrosPerPage: number
  /** The highest RSS sampled while this side ran (this process; the fixture site runs in its own). */
  peakRssBytes: number
  /**
   * Requests in flight on average while the side ran: the sum of each request's time
   * (sent to last body byte) over the elapsed time. Below the concurrency, the
   * client's own work between requests kept connections idle.
   */
  meanInFlight: number
  requests: number
  failures: number
}

/** The store floor's figures, with what its file held (a floor that stored nothing would measure nothing). */
export interface FloorSideFigures extends CrawlerSideFigures {
  rows: number
  storedBodyBytes: number
  /** The history floor's own writes: observation rows, frontier rows marked done, report entries. */
  observations?: number
  done?: number
  reportEntries?: number
}

export interface CrawlerBenchResult {
  bench: 'crawler'
  pages: number
  pageBytes: number
  concurrency: number
  rounds: number
  warmup: number
  retain: 'body' | 'headers' | 'none'
  /** Each side's figures: the median of its rounds, figure by figure. */
  crawler: CrawlerSideFigures
  bareUndici: CrawlerSideFigures
  /** The bare loop that also digests each page and stores it in SQLite (nothing else). */
  storeFloor: FloorSideFigures
  /** The store floor that also keeps history: an observation row, the frontier mark and a report entry per page, grouped as the store groups them. */
  historyFloor: FloorSideFigures
  /** crawler / bare pages per second (median round). */
  ratio: number
  /** store floor / bare: about the most a crawler that stores each page on its event loop could reach on this machine (median round). */
  floorRatio: number
  /** crawler / store floor pages per second (median round). */
  crawlerOfFloor: number
  /** crawler / store floor CPU per page (median round). */
  cpuOfFloor: number
  /** crawler / history floor pages per second (median round): the figure the target is about. */
  crawlerOfHistory: number
  /** crawler / history floor CPU per page (median round): the figure the CPU target is about. */
  cpuOfHistory: number
  /** Each measured round's ratios, in the order they ran. */
  roundRatios: { crawlerOfFloor: number[], cpuOfFloor: number[], crawlerOfHistory: number[], cpuOfHistory: number[] }
  /** The first warm-up round's ratios to the history floor (the crawler's code still compiling), not counted; null without warm-up. */
  cold: { crawlerOfHistory: number, cpuOfHistory: number } | null
  /** At least this share of the history floor's pages per second. */
  target: number
  /** At most this multiple of the history floor's CPU per page. */
  cpuTarget: number
  pass: boolean
}
