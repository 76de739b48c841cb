// npm's `prepare` script. In a clone (`npm install` / `npm ci`) it compiles dist/ with the
// development build (tests and source maps included). Anywhere else it does nothing, silently:
// an installed package already ships dist/ and has neither tsconfig.json nor TypeScript, and
// `npm pack` / `npm publish` have already built the release build in `prepack`.
import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'

const packing = process.env.npm_command === 'pack' || process.env.npm_command === 'publish'
if (!packing && existsSync('tsconfig.json')) {
  let tsc
  try { tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc') } catch { tsc = undefined }
  if (tsc !== undefined) {
    const r = spawnSync(process.execPath, [tsc, '-p', '.'], { stdio: 'inherit' })
    process.exit(r.status ?? 1)
  }
}
