import { runBatch } from '../run-batch.js'

// The quick tests of this part, in one process: see test/run-batch.ts
runBatch(new URL('./batch/', import.meta.url))
