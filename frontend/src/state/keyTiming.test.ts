import { describe, expect, it, vi } from 'vitest'
import { eventTimeUnixMs, watchEnterTiming } from './keyTiming'

describe('the time the window received Enter', () => {
  it('counts a high-resolution time stamp from the time origin', () => {
    expect(eventTimeUnixMs({ timeStamp: 1500.25 }, 1_700_000_000_000)).toBe(1_700_000_001_500.25)
  })

  it('takes a time stamp from the epoch as it is', () => {
    expect(eventTimeUnixMs({ timeStamp: 1_700_000_000_123 }, 5)).toBe(1_700_000_000_123)
  })

  it('is noted for Enter in the message box as the key arrives, and not for Shift+Enter or other fields', async () => {
    document.body.innerHTML = '<form class="composer"><textarea id="box"></textarea></form><input id="other" />'
    const calls: string[] = []
    const backend = { keyReceived: vi.fn(async (key: string, at: number) => void calls.push(`note ${key} ${at > 1e12}`)) }
    const stop = watchEnterTiming(backend)
    const box = document.getElementById('box')!
    box.addEventListener('keydown', () => calls.push('handled'))
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))
    box.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', shiftKey: true, bubbles: true }))
    document.getElementById('other')!.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }))
    await new Promise((r) => setTimeout(r, 0))
    expect(calls).toEqual(['note Enter true', 'handled', 'handled'])
    expect(backend.keyReceived).toHaveBeenCalledTimes(1)
    expect(backend.keyReceived.mock.calls[0][1]).toBeGreaterThan(1e12)
    stop()
  })
})
