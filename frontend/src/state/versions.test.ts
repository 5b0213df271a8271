import { describe, expect, it } from 'vitest'
import type { OpenedChat } from '../backend'
import { FakeBackend } from '../fakeBackend'
import { StateCell } from './appState'
import { chatFromSnapshot, redoable } from './chatReducer'
import { Versions } from './versions'

function opened(): OpenedChat {
  const msg = (id: string, role: 'user' | 'assistant', content: string) => ({ id, role, content, createdAt: '', complete: true })
  return {
    chat: { id: 'c1', title: 't', model: 'm', workspace: '/w', createdAt: '', updatedAt: '', messageCount: 2, phase: 'idle' },
    messages: [msg('u1', 'user', 'hello'), msg('a1', 'assistant', 'hi')],
    toolCalls: [],
    phase: 'idle',
    liveRunId: '',
    versions: [{ messageId: 'u1', index: 2, count: 2 }],
  } as unknown as OpenedChat
}

function setup() {
  const backend = new FakeBackend()
  backend.opened.c1 = opened()
  const cell = new StateCell(backend)
  cell.set({ activeChatId: 'c1', chats: { c1: chatFromSnapshot(opened(), 'c1') } })
  let refreshed = 0
  const versions = new Versions(cell, { refreshChats: async () => void refreshed++ })
  return { backend, cell, versions, refreshed: () => refreshed }
}

describe('versions of a chat', () => {
  it('regenerate an answer by sending again the message it replied to', async () => {
    const { backend, cell, versions, refreshed } = setup()
    await versions.regenerate('a1')
    expect(backend.callsOf('EditAndResend')).toEqual([['c1', 'u1', 'hello']])
    expect(cell.get().versions.c1).toEqual([{ messageId: 'u1', index: 2, count: 2 }])
    expect(refreshed()).toBe(1)
  })

  it('after an edit, offer no Redo for an undo the Go side says is of the version put aside', async () => {
    const { backend, cell, versions } = setup()
    const run = { id: 'r1', kind: 'run', paths: ['index.html'], revertedBy: 'x1' }
    const undo = { id: 'x1', kind: 'undo', paths: ['index.html'], reverts: ['r1'] }
    cell.set({ chats: { c1: { ...cell.get().chats.c1, changes: [run, undo] } } })
    expect(redoable(cell.get().chats.c1)?.id).toBe('x1')
    backend.opened.c1 = { ...opened(), changes: [{ ...run, otherVersion: true }, { ...undo, otherVersion: true }] }
    await versions.editAndResend('u1', 'hello again')
    expect(redoable(cell.get().chats.c1)).toBeNull()
  })

  it('open the last message of the user for editing, not while the chat runs', () => {
    const { cell, versions } = setup()
    expect(versions.editLast()).toBe(true)
    expect(cell.get().editing).toBe('u1')
    cell.set({ chats: { c1: { ...cell.get().chats.c1, phase: 'streaming' } } })
    expect(versions.editLast()).toBe(false)
  })

  it('show an earlier version, and ask nothing for the version shown or one out of range', async () => {
    const { backend, cell, versions } = setup()
    cell.set({ versions: { c1: [{ messageId: 'u1', index: 2, count: 2 }] } })
    await versions.showVersion('u1', 2)
    await versions.showVersion('u1', 3)
    expect(backend.callsOf('ShowVersion')).toEqual([])
    await versions.showVersion('u1', 1)
    expect(backend.callsOf('ShowVersion')).toEqual([['c1', 'u1', 1]])
  })
})
