import type { ScenarioResult } from '../run-scenario.js'

/**
 * A one-line progress bar on a terminal (stderr), redrawn in place; nothing at
 * all when the stream is not a TTY, so CI logs and pipes stay clean.
 */
export function progressBar (stream: NodeJS.WriteStream, total: number): { update: (r: ScenarioResult, done: number) => void, end: () => void } {
  if (stream.isTTY !== true) return { update: () => {}, end: () => {} }
  let failed = 0
  const width = 30
  return {
    update: (r, done) => {
      if (r.verdict === 'fail' || r.verdict === 'setup-fail' || r.verdict === 'harness-fail') failed++
      const filled = Math.round((done / total) * width)
      const bar = '█'.repeat(filled) + '░'.repeat(width - filled)
      const line = `${bar} ${done}/${total}${failed > 0 ? ` (${failed} failing)` : ''} ${r.id}`
      stream.write(`\r\x1b[2K${line.slice(0, Math.max(20, (stream.columns ?? 80) - 1))}`)
    },
    end: () => { stream.write('\r\x1b[2K') }
  }
}
