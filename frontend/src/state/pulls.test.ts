import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../backend'
import { FakeBackend } from '../fakeBackend'
import { StateCell } from './appState'
import { Pulls } from './pulls'

function progress(model: string, completed: number, total = 1000): AgentEvent {
  return { v: 1, seq: 1, chatId: '', at: '', type: 'pull.progress', model, status: 'pulling', total, completed }
}

describe('pulls', () => {
  it('measure their speed from progress, smoothed', () => {
    const cell = new StateCell(new FakeBackend())
    let now = 0
    const pulls = new Pulls(cell, { refreshOllama: async () => {}, setModel: async () => {} }, () => now)
    expect(pulls.takeEvent(progress('m', 0))).toBe(true)
    now = 1000
    pulls.takeEvent(progress('m', 100))
    expect(cell.get().pulls.m.bytesPerSec).toBe(100)
    now = 2000
    pulls.takeEvent(progress('m', 400))
    expect(cell.get().pulls.m.bytesPerSec).toBeCloseTo(100 * 0.7 + 300 * 0.3)
  })

  it('take only their own events: a pull failing ends it, a chat event is not theirs', () => {
    const cell = new StateCell(new FakeBackend())
    const pulls = new Pulls(cell, { refreshOllama: async () => {}, setModel: async () => {} })
    pulls.takeEvent(progress('m', 10))
    expect(pulls.takeEvent({ v: 1, seq: 2, chatId: 'c1', at: '', type: 'error', message: 'x' })).toBe(false)
    expect(pulls.takeEvent({ v: 1, seq: 3, chatId: '', at: '', type: 'error', model: 'm', message: 'disk full' })).toBe(true)
    expect(cell.get().pulls.m).toMatchObject({ error: 'disk full', done: true })
  })

  it('make a first model the one to use once it is there', async () => {
    const backend = new FakeBackend()
    const cell = new StateCell(backend)
    const used: string[] = []
    const pulls = new Pulls(cell, { refreshOllama: async () => {}, setModel: async (m) => void used.push(m) })
    const done = pulls.pullModel(' qwen3:4b ')
    expect(cell.get().pulls['qwen3:4b'].status).toBe('starting')
    backend.finishPull?.()
    await done
    expect(cell.get().pulls['qwen3:4b']).toMatchObject({ status: 'success', done: true })
    expect(used).toEqual(['qwen3:4b'])
    pulls.dismissPull('qwen3:4b')
    expect(cell.get().pulls).toEqual({})
  })
})
