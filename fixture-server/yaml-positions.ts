import { isMap, isSeq, type Document, type LineCounter, type Node } from 'yaml'

export interface Position { line: number, col: number }

/** JSON pointer (`/origins/0/routes/1`) to path segments. */
export function pointerSegments (pointer: string): Array<string | number> {
  if (pointer === '') return []
  return pointer.slice(1).split('/').map(s => s.replace(/~1/g, '/').replace(/~0/g, '~')).map(s => /^\d+$/.test(s) ? Number(s) : s)
}

/**
 * Where a value sits in a YAML document, as line and column (1-based). With `key`,
 * points at that key of the map at `path` (for "unknown property" errors). Falls back
 * to the nearest ancestor that exists.
 */
export function positionOf (doc: Document, lineCounter: LineCounter, path: Array<string | number>, key?: string): Position {
  let node: unknown = doc.contents
  let best: Node | null = (doc.contents as Node | null)
  for (const segment of path) {
    if (isMap(node)) node = node.get(segment, true)
    else if (isSeq(node) && typeof segment === 'number') node = node.get(segment, true)
    else break
    if (node === undefined || node === null) break
    best = node as Node
  }
  let offset = best?.range?.[0] ?? 0
  if (key !== undefined && isMap(best)) {
    const pair = best.items.find(p => (p.key as { value?: unknown } | null)?.value === key)
    const keyNode = pair?.key as Node | undefined
    if (keyNode?.range != null) offset = keyNode.range[0]
  }
  const { line, col } = lineCounter.linePos(offset)
  return { line, col }
}
