/**
 * A small seeded PRNG (sfc32, seeded through splitmix32) so every simulation
 * run is reproducible from its seed. `stream` gives independent sequences from
 * one seed (one per page, one for the site's parameters).
 */
function splitmix32 (state: number): () => number {
  let s = state >>> 0
  return () => {
    s = (s + 0x9e3779b9) >>> 0
    let z = s
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0
    return (z ^ (z >>> 16)) >>> 0
  }
}

export class Prng {
  private a: number
  private b: number
  private c: number
  private d: number
  private spare: number | null = null

  constructor (seed: number, stream = 0) {
    const mix = splitmix32((seed >>> 0) ^ Math.imul(stream + 1, 0x27d4eb2d))
    this.a = mix()
    this.b = mix()
    this.c = mix()
    this.d = mix()
    for (let i = 0; i < 12; i++) this.nextUint32()
  }

  nextUint32 (): number {
    const t = (((this.a + this.b) >>> 0) + this.d) >>> 0
    this.d = (this.d + 1) >>> 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) >>> 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) >>> 0
    return t
  }

  /** Uniform in [0, 1). */
  next (): number {
    return this.nextUint32() / 4294967296
  }

  /** Uniform in (0, 1]: safe under a logarithm. */
  nextOpen (): number {
    return (this.nextUint32() + 1) / 4294967296
  }

  /** Standard normal (Box–Muller, keeping the second value). */
  normal (): number {
    if (this.spare !== null) {
      const v = this.spare
      this.spare = null
      return v
    }
    const r = Math.sqrt(-2 * Math.log(this.nextOpen()))
    const theta = 2 * Math.PI * this.next()
    this.spare = r * Math.sin(theta)
    return r * Math.cos(theta)
  }

  /** Exponential with the given rate (mean 1 / rate). */
  exponential (rate: number): number {
    return -Math.log(this.nextOpen()) / rate
  }

  logNormal (mu: number, sigma: number): number {
    return Math.exp(mu + sigma * this.normal())
  }
}
