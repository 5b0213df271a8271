import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AgentEvent } from '../backend'
import { FakeBackend } from '../fakeBackend'
import { StateCell } from './appState'
import { emptyChat } from './chatReducer'
import { ServerWatch, ollamaPollFirstMs } from './serverWatch'

describe('the server watch', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('lists the models of a server that answers, and says so to the budget', async () => {
    const backend = new FakeBackend()
    const cell = new StateCell(backend)
    let changed = 0
    const watch = new ServerWatch(cell, () => changed++)
    await watch.refreshOllama()
    expect(cell.get().ollama?.running).toBe(true)
    expect(cell.get().models.map((m) => m.name)).toEqual(['qwen3:4b', 'gemma3:1b'])
    expect(cell.get().checkingOllama).toBe(false)
    expect(changed).toBe(1)
  })

  it('asks again by itself while the server is away, and stops once it answers', async () => {
    const backend = new FakeBackend()
    backend.status = { ...backend.status, running: false }
    const cell = new StateCell(backend)
    const watch = new ServerWatch(cell, () => {})
    await watch.refreshOllama()
    expect(backend.callsOf('OllamaStatus')).toHaveLength(1)
    backend.status = { ...backend.status, running: true }
    await vi.advanceTimersByTimeAsync(ollamaPollFirstMs)
    expect(backend.callsOf('OllamaStatus')).toHaveLength(2)
    expect(cell.get().ollama?.running).toBe(true)
    await vi.advanceTimersByTimeAsync(ollamaPollFirstMs * 30)
    expect(backend.callsOf('OllamaStatus')).toHaveLength(2)
  })

  it('takes a run failing because the server is gone as the server away', async () => {
    const backend = new FakeBackend()
    const cell = new StateCell(backend)
    cell.set({ chats: { c1: emptyChat('c1') } })
    const watch = new ServerWatch(cell, () => {})
    await watch.refreshOllama()
    const gone: AgentEvent = { v: 1, seq: 1, chatId: 'c1', at: '', type: 'error', code: 'not_running', message: 'gone' }
    watch.notice({ ...gone, code: 'tool_failed' })
    expect(cell.get().ollama?.running).toBe(true)
    watch.notice(gone)
    expect(cell.get().ollama).toMatchObject({ running: false, error: 'gone' })
    watch.stop()
  })
})
