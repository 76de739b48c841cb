/**
 * A strict little XML reader for the reporter tests: elements, attributes and
 * text, entities decoded, and an error on anything not well-formed (a tag closed
 * out of order, an unknown entity, a bare `<` or `&`). Enough for JUnit XML.
 */
export interface XmlElement {
  name: string
  attrs: Record<string, string>
  children: XmlElement[]
  text: string
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function decode (text: string): string {
  return text.replace(/&([a-z]+|#\d+|#x[0-9a-f]+);|&/gi, (whole: string, name: string | undefined) => {
    if (name === undefined) throw new Error('a bare & in text')
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16))
    if (name.startsWith('#')) return String.fromCodePoint(Number(name.slice(1)))
    const v = ENTITIES[name]
    if (v === undefined) throw new Error(`unknown entity ${whole}`)
    return v
  })
}

export function readXml (xml: string): XmlElement {
  const body = xml.replace(/^<\?xml[^?]*\?>\s*/, '')
  const root: XmlElement = { name: '#document', attrs: {}, children: [], text: '' }
  const stack: XmlElement[] = [root]
  const token = /<\/([\w:-]+)\s*>|<([\w:-]+)((?:\s+[\w:-]+="[^"<]*")*)\s*(\/?)>|([^<]+)|(<)/gy
  let m: RegExpExecArray | null
  let pos = 0
  while ((m = token.exec(body)) !== null) {
    pos = token.lastIndex
    const top = stack[stack.length - 1]
    if (m[6] !== undefined) throw new Error(`a bare < at offset ${m.index}`)
    if (m[1] !== undefined) {
      if (top.name !== m[1]) throw new Error(`</${m[1]}> closes <${top.name}>`)
      stack.pop()
    } else if (m[2] !== undefined) {
      const attrs: Record<string, string> = {}
      for (const a of m[3].matchAll(/([\w:-]+)="([^"]*)"/g)) attrs[a[1]] = decode(a[2])
      const el: XmlElement = { name: m[2], attrs, children: [], text: '' }
      top.children.push(el)
      if (m[4] !== '/') stack.push(el)
    } else if (m[5] !== undefined) {
      top.text += decode(m[5])
    }
  }
  if (pos < body.length) throw new Error(`unparsed XML at offset ${pos}`)
  if (stack.length !== 1) throw new Error(`<${stack[stack.length - 1].name}> is never closed`)
  if (root.children.length !== 1) throw new Error('an XML document has one root element')
  return root.children[0]
}

export function findAll (el: XmlElement, name: string): XmlElement[] {
  return el.children.flatMap(c => [...(c.name === name ? [c] : []), ...findAll(c, name)])
}
