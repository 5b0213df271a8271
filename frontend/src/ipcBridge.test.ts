import { describe, expect, it, vi } from 'vitest'
import { bridgeBindings, ipcEvent } from './ipcBridge'

function fakeWindow(handler: { postMessage: (m: string) => void } | undefined) {
  const w = {
    WailsInvoke: (m: string) => void m,
    webkit: { messageHandlers: { external: handler } },
    document: new EventTarget(),
  }
  return w as unknown as Parameters<typeof bridgeBindings>[0] & { WailsInvoke: (m: string) => void }
}

describe('the bindings bridge', () => {
  it('posts to the handler while the page’s world has it', () => {
    const post = vi.fn()
    const w = fakeWindow({ postMessage: post })
    bridgeBindings(w)
    w.WailsInvoke('C{"name":"main.App.Config"}')
    expect(post).toHaveBeenCalledWith('C{"name":"main.App.Config"}')
  })

  it('dispatches on its own document once the handler moved to the app’s world', () => {
    const w = fakeWindow(undefined)
    const got: unknown[] = []
    w.document.addEventListener(ipcEvent, (e) => got.push((e as CustomEvent).detail))
    bridgeBindings(w)
    w.WailsInvoke('C{"name":"main.App.Config"}')
    expect(got).toEqual(['C{"name":"main.App.Config"}'])
  })
})
