/**
 * Set on a connection once any request came on it (an admin one too): the journal sets
 * it, and the TLS failure notes (tls/tls-failures.ts) read it, since a TLS connection
 * closed without a request is journalled apart.
 */
export const kServed = Symbol('webkrab.served')
