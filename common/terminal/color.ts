/**
 * Whether output to a stream gets ANSI colour, one rule for every command:
 * FORCE_COLOR (set, not empty and not "0") forces it; otherwise NO_COLOR (set and not empty,
 * https://no-color.org) refuses it; otherwise a terminal that is not TERM=dumb.
 */
export function wantsColor (stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false
  return stream.isTTY === true && env.TERM !== 'dumb'
}
