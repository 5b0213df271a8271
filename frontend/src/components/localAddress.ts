/**
 * Whether an Ollama address is on this machine (empty: the default one, which is): a local
 * Ollama takes no key, so the settings ask for one only for an Ollama elsewhere (behind a
 * proxy). Local are the loopback addresses (127.0.0.0/8, ::1 and localhost, with or without
 * the final dot of a fully qualified name), the unspecified ones a server listens on for every
 * interface (0.0.0.0, ::), and this machine's own name (hostName, from the Go side). An address
 * that cannot be read is not taken for a local one.
 */
export function isLocalAddress(address: string, hostName = ''): boolean {
  const a = address.trim()
  if (!a) return true
  let host: string
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(a) ? a : `http://${a}`).hostname
  } catch {
    return false
  }
  host = host
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.$/, '')
  const own = hostName.trim().toLowerCase().replace(/\.$/, '')
  return (
    host === 'localhost' ||
    host.endsWith('.localhost') ||
    (own !== '' && host === own) ||
    host === '0.0.0.0' ||
    /^127(\.\d{1,3}){3}$/.test(host) ||
    isLoopbackOrUnspecifiedIPv6(host)
  )
}

/** Whether host is the IPv6 loopback (::1) or unspecified (::) address, however it is written. */
function isLoopbackOrUnspecifiedIPv6(host: string): boolean {
  if (!host.includes(':')) return false
  // the URL parser writes an IPv6 address in its shortest form; an IPv4-mapped one keeps its v4 part
  if (host === '::' || host === '::1') return true
  const mapped = /^::ffff:(\d{1,3}(\.\d{1,3}){3}|[0-9a-f]{1,4}:[0-9a-f]{1,4})$/.exec(host)
  if (!mapped) return false
  const v4 = mapped[1].includes('.')
    ? mapped[1]
    : mapped[1]
        .split(':')
        .flatMap((h) => {
          const n = parseInt(h, 16)
          return [n >> 8, n & 255]
        })
        .join('.')
  return v4 === '0.0.0.0' || /^127\./.test(v4)
}
