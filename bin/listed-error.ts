import type { ErrorFactory, WebkrabError } from '../common/errors.js'

/** At most this many problems are listed in one error; the rest are counted. */
export const MAX_LISTED_PROBLEMS = 20

const LISTED = Symbol('webkrab.listedProblems')

/**
 * One error listing several problems, one a line: the first line is the first problem in
 * full (and says how many follow), so it reads on its own; at most MAX_LISTED_PROBLEMS
 * are listed, then "and N more". Each line is kept to one line (a quoted key may hold a
 * line break), so a file cannot print lines of its own.
 */
export function listedError (factory: ErrorFactory, problems: string[]): WebkrabError {
  const lines = problems.map(p => p.replace(/[\r\n]+/g, ' '))
  const shown = lines.slice(0, MAX_LISTED_PROBLEMS)
  const more = lines.length - shown.length
  const head = lines.length > 1 ? `${shown[0]}; ${lines.length - 1} more problem${lines.length > 2 ? 's' : ''}:` : shown[0] ?? 'is not valid'
  const rest = [...shown.slice(1), ...(more > 0 ? [`and ${more} more`] : [])]
  const err = factory([head, ...rest].join('\n'))
  Object.defineProperty(err, LISTED, { value: rest })
  return err
}

/**
 * The lines an error lists after its first (see listedError), for the CLI to print one a
 * line; null for any other error, whose message the CLI prints on one line.
 */
export function listedLinesOf (err: unknown): string[] | null {
  if (err === null || typeof err !== 'object') return null
  const lines = (err as { [LISTED]?: unknown })[LISTED]
  return Array.isArray(lines) ? lines as string[] : null
}
