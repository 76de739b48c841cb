/** Whether a host name or address is the loopback interface, where the fixture site may listen without a token. */
export function isLoopback (host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host)
}
