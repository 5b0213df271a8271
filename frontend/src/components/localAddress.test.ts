import { describe, expect, it } from 'vitest'
import { isLocalAddress } from './localAddress'

describe('an Ollama address on this machine', () => {
  it.each(['', 'http://127.0.0.1:11434', 'localhost:11434', 'http://[::1]:11434', '127.0.0.2', 'http://LOCALHOST', '0.0.0.0:11434'])('is %j', (a) => {
    expect(isLocalAddress(a)).toBe(true)
  })
  it.each(['https://ollama.example.org', '192.168.1.20:11434', 'http://gpu:11434', 'http://127.0.0.1.example.org', 'http://[::2]:1', 'http:// bad'])('is not %j', (a) => {
    expect(isLocalAddress(a)).toBe(false)
  })
  it.each(['http://[::]:11434', 'http://localhost.:11434', 'http://[::1]:11434', 'http://0.0.0.0:11434', 'http://[0:0:0:0:0:0:0:1]:11434', 'http://[::ffff:127.0.0.1]:11434'])(
    'is %j, a loopback or unspecified address however written',
    (a) => {
      expect(isLocalAddress(a)).toBe(true)
    },
  )
  it('is this machine named by its own host name, and not another machine', () => {
    expect(isLocalAddress('http://Workstation:11434', 'workstation')).toBe(true)
    expect(isLocalAddress('http://workstation.:11434', 'workstation')).toBe(true)
    expect(isLocalAddress('http://workstation:11434')).toBe(false)
    expect(isLocalAddress('http://gpu:11434', 'workstation')).toBe(false)
    expect(isLocalAddress('http://[::ffff:10.0.0.1]:11434', 'workstation')).toBe(false)
  })
})
