import type { ProgressStream } from '../common/terminal/progress.js'

// The conformance command's outputs, apart from the command (cli.ts) because the
// scorecard run it starts (run-scorecard.ts) writes to the same ones.

/** Where the command writes: stdout for results, stderr for progress and notes; `env` decides whether progress is drawn (CI, NO_COLOR). */
export interface ConformanceIo {
  stdout: { write: (chunk: string) => unknown, isTTY?: boolean }
  stderr: ProgressStream
  env?: NodeJS.ProcessEnv
}
