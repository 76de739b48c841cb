import { randomUUID } from 'node:crypto'

/** Body bytes gathered before one chunk row is written: bounds memory per download. */
export const BODY_CHUNK_BYTES = 256 * 1024

/**
 * A body being downloaded: chunks are written under a staging key as they
 * arrive (at most BODY_CHUNK_BYTES held in memory), and become the record's body
 * only inside the transaction that writes the record.
 */
export class BodyWriter {
  private key: string | null = null
  private pending: Buffer[] = []
  private pendingBytes = 0
  private seq = 0
  private closed = false

  /** `fresh` (to insert and takeRest): the buffer was made here, joining chunks, and nothing else holds it. */
  constructor (private readonly insert: (staging: string, seq: number, data: Buffer, fresh: boolean) => void,
    private readonly discardStaged: (staging: string) => void) {}

  write (chunk: Buffer): void {
    if (this.closed) return
    this.pending.push(chunk)
    this.pendingBytes += chunk.length
    if (this.pendingBytes >= BODY_CHUNK_BYTES) this.flush()
  }

  /** Writes what is still held in memory (called by the store before it adopts the chunks). */
  flush (): void {
    if (this.pendingBytes === 0 && this.pending.length === 0) return
    const fresh = this.pending.length > 1
    this.insert(this.staging, this.seq++, this.take(), fresh)
  }

  /** The key its chunks are staged under: made when first asked for (a small body, written with its record, never needs one). */
  get staging (): string {
    this.key ??= randomUUID()
    return this.key
  }

  /** @internal whether a staging key was made (only a body some of whose chunks went ahead of its record needs one) */
  get keyed (): boolean {
    return this.key !== null
  }

  /** Whether any chunk went to the staging rows yet (a small body never does before its record is written). */
  get staged (): boolean {
    return this.seq > 0
  }

  /** Hands over what is held in memory, as one chunk, and the number it goes in as. */
  takeRest (): { seq: number, data: Buffer, fresh: boolean } | null {
    if (this.pendingBytes === 0 && this.pending.length === 0) return null
    const fresh = this.pending.length > 1
    return { seq: this.seq++, data: this.take(), fresh }
  }

  private take (): Buffer {
    const data = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending, this.pendingBytes)
    this.pending = []
    this.pendingBytes = 0
    return data
  }

  /** Drops the staged chunks (a download that did not complete). */
  discard (): void {
    this.closed = true
    this.pending = []
    this.pendingBytes = 0
    // only chunks handed over were staged: a body held in memory alone leaves nothing behind
    if (this.staged) this.discardStaged(this.staging)
  }
}
