/** The certificates a TLS origin of the fixture site may present (made in certificates.ts), apart so that naming them loads no X.509 code. */

/** What a TLS origin presents. `valid` is signed by the run's CA for the site's hosts. */
export const CERTIFICATE_KINDS = ['valid', 'expired', 'wrong-host', 'self-signed', 'untrusted-root', 'incomplete-chain'] as const
export type CertificateKind = typeof CERTIFICATE_KINDS[number]

/** The broken kinds, each the name of an origin of the built-in site under --tls. */
export const BROKEN_CERTIFICATES: ReadonlyArray<Exclude<CertificateKind, 'valid'>> = ['expired', 'wrong-host', 'self-signed', 'untrusted-root', 'incomplete-chain']

/** What each kind is, for the catalogue, the index page and a crawler's reason to quote. */
export const CERTIFICATE_TEXT: Record<CertificateKind, string> = {
  valid: 'signed by the run\'s CA for the site\'s hosts (127.0.0.1, ::1, localhost)',
  expired: 'signed by the run\'s CA, but expired on 1970-01-02',
  'wrong-host': 'signed by the run\'s CA for wrong-host.invalid, not the host asked',
  'self-signed': 'self-signed: no CA vouches for it',
  'untrusted-root': 'signed by a CA made for the run that no client trusts (its root is sent too)',
  'incomplete-chain': 'signed by an intermediate of the run\'s CA that the server does not send'
}

