import { errors } from '../../common/errors.js'

/** Refuses a public URL that is not an absolute http(s) URL of an origin (no path, query or credentials). */
export function checkPublicUrl (text: string, flag = '--public-url'): string {
  let u: URL
  try {
    u = new URL(text)
  } catch {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} "${text}" is not a URL such as http://fixture:8080`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} "${text}" is not an http(s) URL`)
  if (u.username !== '' || u.password !== '' || (u.pathname !== '/' && u.pathname !== '') || u.search !== '' || u.hash !== '') {
    throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} "${text}" must be an origin only (scheme, host, port), such as http://fixture:8080`)
  }
  return text
}

/** Refuses an empty host: Node would bind every interface, which is never what an empty flag meant. */
export function checkHost (host: string, flag = '--host'): string {
  if (host.trim() === '') throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} is empty: give an address such as 127.0.0.1 (loopback) or 0.0.0.0 (every interface, with a token)`)
  if (host !== host.trim() || /[\s/]/.test(host)) throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} "${host}" is not a host name or address`)
  return host
}
