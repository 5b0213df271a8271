import { describe, expect, it } from 'vitest'
import { isLocalAddress } from './localAddress'

describe('an Ollama address on this machine', () => {
  it.each(['', 'http://127.0.0.1:11434', 'localhost:11434', 'http://[::1]:11434', '127.0.0.2', 'http://LOCALHOST', '0.0.0.0:11434'])('is %j', (a) => {
    expect(isLocalAddress(a)).toBe(true)
  })
  it.each(['https://ollama.example.org', '192.168.1.20:11434', 'http://gpu:11434', 'http://127.0.0.1.example.org', 'http://[::2]:1', 'http:// bad'])('is not %j', (a) => {
    expect(isLocalAddress(a)).toBe(false)
  })
})
