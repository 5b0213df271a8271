/**
 * Whether an Ollama address is on this machine (empty: the default one, which is): a local
 * Ollama takes no key, so the settings ask for one only for an Ollama elsewhere (behind a
 * proxy). An address that cannot be read is not taken for a local one.
 */
export function isLocalAddress(address: string): boolean {
  const a = address.trim()
  if (!a) return true
  let host: string
  try {
    host = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(a) ? a : `http://${a}`).hostname
  } catch {
    return false
  }
  host = host.replace(/^\[|\]$/g, '').toLowerCase()
  return host === 'localhost' || host.endsWith('.localhost') || host === '::1' || host === '0.0.0.0' || /^127(\.\d{1,3}){3}$/.test(host)
}
