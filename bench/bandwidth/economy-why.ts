import type { WayFigures } from './bandwidth-figures.js'

function share (n: number, of: number): string {
  const p = of === 0 ? 0 : (100 * n) / of
  return `${p >= 10 || p === 0 ? p.toFixed(0) : p.toFixed(1)}%`
}

function plural (n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`
}

/**
 * Why a way spent what it spent, in one sentence read off its figures (which
 * come from the journal alone): which validators it sent and how often, and the
 * costs beyond that (bodies refetched unchanged, changes missed, requests
 * beyond its visits), biggest first.
 */
export function economyWhy (f: WayFigures): string {
  const pageRequests = f.requests - f.beyondVisits.robots - f.beyondVisits.other
  const reused = f.changesMissed.reused + f.reusedFresh
  let lead: string
  if (f.conditional === 0) {
    lead = reused > 0 ? 'sends no validator: it reuses some copies without asking and refetches the rest in full' : 'keeps no validator: every revisit is a full refetch'
  } else {
    const inm = f.validators.ifNoneMatch > 0
    const ims = f.validators.ifModifiedSince > 0
    lead = inm && ims ? 'revalidates with the ETag and Last-Modified' : inm ? 'revalidates by ETag (If-None-Match) only' : 'revalidates by If-Modified-Since only (it keeps no ETag)'
    if (f.conditional < 0.95 * pageRequests) lead += `, on ${share(f.conditional, pageRequests)} of its page requests`
  }
  const costs: Array<{ weight: number, text: string }> = []
  if (f.refetchedUnchanged.count > 0 && f.conditional > 0) costs.push({ weight: f.refetchedUnchanged.bytes, text: `refetched ${plural(f.refetchedUnchanged.count, 'unchanged body', 'unchanged bodies')} in full` })
  if (f.changesMissed.notModified > 0) costs.push({ weight: Infinity, text: `was told 304 ${plural(f.changesMissed.notModified, 'time')} where the page had changed since its copy` })
  if (f.changesMissed.reused > 0) costs.push({ weight: Infinity, text: `reused ${plural(f.changesMissed.reused, 'copy', 'copies')} of pages that had changed` })
  if (f.reusedFresh > 0 && f.conditional > 0) costs.push({ weight: 0, text: `reused ${plural(f.reusedFresh, 'current copy', 'current copies')} without asking` })
  if (f.beyondVisits.requests > 0) {
    const parts = [
      f.beyondVisits.robots > 0 ? `${f.beyondVisits.robots} for robots.txt` : '',
      f.beyondVisits.retries > 0 ? `${f.beyondVisits.retries} retries` : '',
      f.beyondVisits.repeats > 0 ? `${f.beyondVisits.repeats} repeats` : '',
      f.beyondVisits.unhanded > 0 ? `${f.beyondVisits.unhanded} for pages it was not handed` : '',
      f.beyondVisits.other > 0 ? `${f.beyondVisits.other} for other paths` : ''
    ].filter(p => p !== '')
    costs.push({ weight: f.beyondVisits.bytes, text: `sent ${plural(f.beyondVisits.requests, 'request')} beyond its visits (${parts.join(', ')})` })
  }
  costs.sort((a, b) => b.weight - a.weight)
  const tail = costs.slice(0, 2).map(c => c.text)
  const sentence = tail.length === 0 ? lead : `${lead}; it ${tail.join(' and ')}`
  return sentence[0].toUpperCase() + sentence.slice(1) + '.'
}
