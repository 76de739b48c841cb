import { errors } from '../../common/errors.js'
import { MIN_TOKEN_LENGTH } from '../site/limits.js'

/**
 * Refuses an admin token too weak to guard anything: empty, shorter than 16 characters,
 * or with a character a header cannot carry as is (WebKrab's rule: a token is a secret
 * that anyone who reaches the site would otherwise guess). `flag` names where it came from.
 */
export function checkToken (token: string, flag = '--token'): string {
  if (token.length === 0) throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} is empty: an admin token is at least ${MIN_TOKEN_LENGTH} characters (leave it out and one is generated)`)
  if (!/^[\x21-\x7e]+$/.test(token)) throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} has a space or a character outside visible ASCII, which the x-webkrab-token header cannot carry as is`)
  if (token.length < MIN_TOKEN_LENGTH) throw errors.WEBKRAB_ERR_BAD_FLAG(`${flag} is ${token.length} characters; an admin token is at least ${MIN_TOKEN_LENGTH} (leave it out and one is generated)`)
  return token
}
