import 'reflect-metadata'
import * as x509 from '@peculiar/x509'
import { webcrypto } from 'node:crypto'

type CryptoKey = webcrypto.CryptoKey
type CryptoKeyPair = webcrypto.CryptoKeyPair
type Crypto = webcrypto.Crypto
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { errors } from '../../common/errors.js'
import type { CertificateKind } from './certificate-kinds.js'

/**
 * The certificates of a fixture site served over TLS: a certificate authority made
 * for the run (or kept in a folder and reused), a certificate for the site's hosts
 * signed by it, and the broken certificates a crawler must refuse, by the names
 * badssl.com made familiar. Made with @peculiar/x509 over WebCrypto (ECDSA P-256:
 * quick to make, and every TLS library a crawler uses accepts it).
 *
 * Validity is about the crawler's clock, which the harness may move to the site's
 * time (any time from 1970-01-11 on): a valid certificate holds from 1970-01-02 to
 * the end of 9999, and the expired one ended on 1970-01-02.
 */

x509.cryptoProvider.set(webcrypto as unknown as Crypto)

/** A server's key and the certificates it sends, leaf first, in PEM. */
export interface ServerCredentials {
  key: string
  cert: string
}

const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' }
const VALID_FROM = new Date('1970-01-02T00:00:00Z')
const VALID_UNTIL = new Date('9999-12-31T23:59:59Z')
const EXPIRED_FROM = new Date('1970-01-01T00:00:00Z')

interface Authority {
  cert: x509.X509Certificate
  keys: CryptoKeyPair
}

async function newKeys (): Promise<CryptoKeyPair> {
  return await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify']) as CryptoKeyPair
}

function serial (): string {
  // positive, 16 bytes: unique enough that no client's cache of a run's certificates meets another's
  return '01' + Buffer.from(webcrypto.getRandomValues(new Uint8Array(15))).toString('hex')
}

async function pemKey (key: CryptoKey): Promise<string> {
  const der = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', key)).toString('base64')
  return `-----BEGIN PRIVATE KEY-----\n${der.match(/.{1,64}/g)?.join('\n') ?? ''}\n-----END PRIVATE KEY-----\n`
}

async function importPemKeys (pem: string, cert: x509.X509Certificate): Promise<CryptoKeyPair> {
  const body = pem.replace(/-----(BEGIN|END) PRIVATE KEY-----/g, '').replace(/\s+/g, '')
  const privateKey = await webcrypto.subtle.importKey('pkcs8', Buffer.from(body, 'base64'), ALGORITHM, true, ['sign'])
  const publicKey = await cert.publicKey.export(ALGORITHM, ['verify'], webcrypto as unknown as Crypto)
  return { privateKey, publicKey } as CryptoKeyPair
}

async function newAuthority (name: string, issuer: Authority | null, pathLength: number): Promise<Authority> {
  const keys = await newKeys()
  const extensions: x509.Extension[] = [
    new x509.BasicConstraintsExtension(true, pathLength, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign, true),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)
  ]
  if (issuer === null) {
    const cert = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: serial(), name, notBefore: VALID_FROM, notAfter: VALID_UNTIL, keys, signingAlgorithm: ALGORITHM, extensions })
    return { cert, keys }
  }
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey))
  const cert = await x509.X509CertificateGenerator.create({ serialNumber: serial(), subject: name, issuer: issuer.cert.subject, notBefore: VALID_FROM, notAfter: VALID_UNTIL, signingKey: issuer.keys.privateKey, publicKey: keys.publicKey, signingAlgorithm: ALGORITHM, extensions })
  return { cert, keys }
}

/** A server certificate for `hosts` (names and IP addresses), signed by `issuer` (itself when null). */
async function newLeaf (hosts: string[], issuer: Authority | null, from: Date, until: Date): Promise<{ cert: x509.X509Certificate, keys: CryptoKeyPair }> {
  const keys = await newKeys()
  const names = hosts.map(h => /^[\d.]+$|:/.test(h) ? { type: 'ip' as const, value: h.replace(/^\[|\]$/g, '') } : { type: 'dns' as const, value: h })
  const subject = `CN=${hosts[0]}`
  const extensions: x509.Extension[] = [
    new x509.SubjectAlternativeNameExtension(names),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.BasicConstraintsExtension(false),
    await x509.SubjectKeyIdentifierExtension.create(keys.publicKey)
  ]
  if (issuer === null) {
    const cert = await x509.X509CertificateGenerator.createSelfSigned({ serialNumber: serial(), name: subject, notBefore: from, notAfter: until, keys, signingAlgorithm: ALGORITHM, extensions })
    return { cert, keys }
  }
  extensions.push(await x509.AuthorityKeyIdentifierExtension.create(issuer.keys.publicKey))
  const cert = await x509.X509CertificateGenerator.create({ serialNumber: serial(), subject, issuer: issuer.cert.subject, notBefore: from, notAfter: until, signingKey: issuer.keys.privateKey, publicKey: keys.publicKey, signingAlgorithm: ALGORITHM, extensions })
  return { cert, keys }
}

/**
 * A run's certificate authority and what it signs. `caFile` is the CA's certificate
 * (PEM), the one file a client needs to trust the site's valid origins.
 */
export class SiteCertificates {
  private readonly made = new Map<string, Promise<ServerCredentials>>()
  private untrusted: Promise<Authority> | null = null
  private intermediate: Promise<Authority> | null = null

  private constructor (private readonly ca: Authority, readonly caFile: string, private readonly hosts: string[]) {}

  /**
   * The run's CA: read from `dir` (`ca.pem`, `ca-key.pem`) when they are there, else
   * made and written there, so a client set up to trust it once trusts every run that
   * keeps the folder. `hosts` are the names and addresses the valid certificate covers.
   */
  static async open (dir: string, hosts: string[]): Promise<SiteCertificates> {
    const certFile = join(dir, 'ca.pem')
    const keyFile = join(dir, 'ca-key.pem')
    if (existsSync(certFile) && existsSync(keyFile)) {
      let ca: Authority
      try {
        const cert = new x509.X509Certificate(readFileSync(certFile, 'utf8'))
        ca = { cert, keys: await importPemKeys(readFileSync(keyFile, 'utf8'), cert) }
      } catch (err) {
        throw errors.WEBKRAB_ERR_BAD_FLAG(`--ca-dir ${dir}: ca.pem and ca-key.pem are not a certificate and its ECDSA P-256 key (${(err as Error).message}); give an empty folder to make a new CA there`, { cause: err })
      }
      return new SiteCertificates(ca, certFile, hosts)
    }
    mkdirSync(dir, { recursive: true })
    const ca = await newAuthority('CN=WebKrab fixture site CA', null, 1)
    writeFileSync(keyFile, await pemKey(ca.keys.privateKey), { mode: 0o600 })
    writeFileSync(certFile, ca.cert.toString('pem') + '\n')
    return new SiteCertificates(ca, certFile, hosts)
  }

  /** The CA's certificate in PEM. */
  get caPem (): string {
    return this.ca.cert.toString('pem') + '\n'
  }

  /** What an origin presenting `kind` sends, made once per kind. */
  async credentials (kind: CertificateKind): Promise<ServerCredentials> {
    let made = this.made.get(kind)
    if (made === undefined) {
      made = this.make(kind)
      this.made.set(kind, made)
    }
    return await made
  }

  private async make (kind: CertificateKind): Promise<ServerCredentials> {
    const pem = async (leaf: { cert: x509.X509Certificate, keys: CryptoKeyPair }, chain: x509.X509Certificate[] = []): Promise<ServerCredentials> =>
      ({ key: await pemKey(leaf.keys.privateKey), cert: [leaf.cert, ...chain].map(c => c.toString('pem')).join('\n') + '\n' })
    switch (kind) {
      case 'valid': return await pem(await newLeaf(this.hosts, this.ca, VALID_FROM, VALID_UNTIL))
      case 'expired': return await pem(await newLeaf(this.hosts, this.ca, EXPIRED_FROM, VALID_FROM))
      case 'wrong-host': return await pem(await newLeaf(['wrong-host.invalid'], this.ca, VALID_FROM, VALID_UNTIL))
      case 'self-signed': return await pem(await newLeaf(this.hosts, null, VALID_FROM, VALID_UNTIL))
      case 'untrusted-root': {
        this.untrusted ??= newAuthority('CN=WebKrab untrusted root', null, 1)
        const root = await this.untrusted
        return await pem(await newLeaf(this.hosts, root, VALID_FROM, VALID_UNTIL), [root.cert])
      }
      case 'incomplete-chain': {
        // the leaf is the intermediate's; the server sends the leaf alone
        this.intermediate ??= newAuthority('CN=WebKrab fixture site intermediate', this.ca, 0)
        return await pem(await newLeaf(this.hosts, await this.intermediate, VALID_FROM, VALID_UNTIL))
      }
    }
  }
}
