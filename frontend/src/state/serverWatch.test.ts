import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { AgentEvent } from '../backend'
import { FakeBackend } from '../fakeBackend'
import { StateCell } from './appState'
import { emptyChat } from './chatReducer'
import { ServerWatch, ollamaPollFirstMs } from './serverWatch'

/** A watch whose first look found the server away. */
async function watchingAnAwayServer() {
  const backend = new FakeBackend()
  backend.status = { ...backend.status, running: false }
  const cell = new StateCell(backend)
  const watch = new ServerWatch(cell, () => {})
  await watch.refreshOllama()
  return { backend, cell, watch }
}

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

  it('drops a failed download from the model menu once models arrive, and keeps one still going', async () => {
    const { backend, cell, watch } = await watchingAnAwayServer()
    const pull = { status: '', total: 0, completed: 0, bytesPerSec: 0 }
    cell.set({
      pulls: {
        'qwen3:4b': { ...pull, name: 'qwen3:4b', error: 'Ollama is not running.', done: true },
        'gemma3:1b': { ...pull, name: 'gemma3:1b', error: '', done: false },
      },
    })
    backend.status = { ...backend.status, running: true }
    await watch.refreshOllama()
    expect(Object.keys(cell.get().pulls)).toEqual(['gemma3:1b'])
  })

  it('asks again by itself while the server is away, and stops once it answers', async () => {
    const { backend, cell } = await watchingAnAwayServer()
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

describe('the models the window lists', () => {
  it('are no longer those of the last server once the server chosen instead does not answer', async () => {
    const backend = new FakeBackend()
    const cell = new StateCell(backend)
    const watch = new ServerWatch(cell, () => {})
    await watch.refreshOllama()
    expect(cell.get().models).toHaveLength(2)
    backend.status = { running: false, url: 'http://127.0.0.1:9/v1', version: '', error: 'nothing answers at http://127.0.0.1:9/v1' }
    await watch.refreshOllama()
    expect(cell.get().models).toEqual([])
    watch.stop()
  })

  it('stay while the same server is away for a moment', async () => {
    const backend = new FakeBackend()
    const cell = new StateCell(backend)
    const watch = new ServerWatch(cell, () => {})
    await watch.refreshOllama()
    backend.status = { ...backend.status, running: false, error: 'connection refused' }
    await watch.refreshOllama()
    expect(cell.get().models).toHaveLength(2)
    watch.stop()
  })
})
