import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../backend'
import { FakeBackend } from '../fakeBackend'
import { StateCell } from './appState'
import { emptyChat } from './chatReducer'
import { Session } from './session'

function setup() {
  const backend = new FakeBackend()
  const cell = new StateCell(backend)
  const session = new Session(cell, { loadBudget: async () => {} })
  return { backend, cell, session }
}

function ev(e: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent {
  return { v: 1, seq: 1, chatId: 'c1', at: '', runId: 'r1', ...e }
}

describe('the session', () => {
  it('queues a message sent while the chat runs, and the run takes it as steering', async () => {
    const { cell, session } = setup()
    cell.set({ activeChatId: 'c1', chats: { c1: { ...emptyChat('c1'), phase: 'streaming', busy: true, loaded: true } } })
    await session.send('also this')
    const [id] = cell.get().queued.c1
    expect(id).toMatch(/^local:/)
    const chat = cell.get().chats.c1
    const after = session.takeFromQueue('c1', [ev({ type: 'message.started', role: 'user', trigger: 'steering' })], chat)
    expect(cell.get().queued.c1).toEqual([])
    expect(after).toBe(chat)
  })

  it('gives the text of queued messages back to the composer when the run is stopped', async () => {
    const { cell, session } = setup()
    cell.set({ activeChatId: 'c1', chats: { c1: { ...emptyChat('c1'), phase: 'streaming', busy: true, loaded: true } } })
    await session.send('first')
    await session.send('second')
    const after = session.takeFromQueue('c1', [ev({ type: 'run.finished', stopReason: 'aborted' })], cell.get().chats.c1)
    expect(after.timeline).toEqual([])
    expect(session.takeRestoredDraft()).toBe('first\n\nsecond')
    expect(session.takeRestoredDraft()).toBe('')
  })

  it('reads the settings again when a message goes to a chat of another folder or model, which new chats then take', async () => {
    const backend = new FakeBackend()
    const cell = new StateCell(backend)
    let reads = 0
    const session = new Session(cell, { loadBudget: async () => {}, loadConfig: async () => void reads++ })
    const config = await backend.config()
    const chat = (id: string, workspace: string, model: string) => ({
      id, title: id, workspace, model, createdAt: '', updatedAt: '', messageCount: 2, phase: 'idle' as const,
    })
    cell.set({
      config,
      chatList: [chat('same', config.workspace, config.model), chat('elsewhere', '/another/folder', config.model), chat('other-model', config.workspace, 'another:model')],
      chats: { same: { ...emptyChat('same'), loaded: true }, elsewhere: { ...emptyChat('elsewhere'), loaded: true }, 'other-model': { ...emptyChat('other-model'), loaded: true } },
    })
    cell.set({ activeChatId: 'same' })
    await session.send('here')
    expect(reads).toBe(0)
    cell.set({ activeChatId: 'elsewhere' })
    await session.send('there')
    expect(reads).toBe(1)
    cell.set({ activeChatId: 'other-model' })
    await session.send('with the other model')
    expect(reads).toBe(2)
  })

  it('takes a message back from the chat when sending it fails, and says why', async () => {
    const { backend, cell, session } = setup()
    cell.set({ activeChatId: 'c1', chats: { c1: { ...emptyChat('c1'), loaded: true } } })
    backend.send = async () => {
      throw new Error('The chat is gone.')
    }
    await expect(session.send('hi')).rejects.toThrow('The chat is gone.')
    expect(cell.get().chats.c1.timeline).toEqual([])
    expect(cell.get().error).toBe('The chat is gone.')
  })

  it('opens a chat read from the store once, and forgets a deleted chat', async () => {
    const { backend, cell, session } = setup()
    await session.selectChat('c1')
    expect(backend.lastOpen).toBe('c1')
    expect(cell.get().chats.c1.loaded).toBe(true)
    await session.selectChat('c1')
    expect(backend.callsOf('OpenChat')).toHaveLength(1)
    await session.deleteChat('c1')
    expect(cell.get().activeChatId).toBeNull()
    expect(cell.get().chats.c1).toBeUndefined()
  })
})
