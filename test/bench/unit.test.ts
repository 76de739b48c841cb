import { runBatch } from '../run-batch.js'

// The unit tests of this part, quick, in one process: see test/run-batch.ts
runBatch(new URL('./unit/', import.meta.url))
