import { describe, expect, it } from 'vitest'
import { FakeBackend } from '../fakeBackend'
import { StateCell } from './appState'
import { Approvals } from './approvals'
import { emptyChat, type ChatState, type ToolCard } from './chatReducer'

function withCard(card: Partial<ToolCard> & Pick<ToolCard, 'id' | 'name'>): ChatState {
  const chat = emptyChat('c1')
  return { ...chat, tools: { [card.id]: { ...card, state: 'awaiting_approval' } as ToolCard } }
}

describe('approvals', () => {
  it('answer a call once, and give the buttons back when the answer is refused', async () => {
    const backend = new FakeBackend()
    const cell = new StateCell(backend)
    const approvals = new Approvals(cell, async () => {})
    await approvals.decide('t1', 'allow')
    await approvals.decide('t1', 'deny')
    expect(backend.callsOf('Decide')).toEqual([['t1', 'allow', '']])
    backend.decide = async () => {
      throw new Error('The call no longer waits.')
    }
    await approvals.decide('t2', 'deny', 'no')
    expect(cell.get().decisions.t2).toBeUndefined()
    expect(cell.get().error).toBe('The call no longer waits.')
  })

  it('allow a command always by the prefix the card shows, with the network chosen', async () => {
    const backend = new FakeBackend()
    const cell = new StateCell(backend)
    let reread = 0
    const approvals = new Approvals(cell, async () => void reread++)
    cell.set({ chats: { c1: withCard({ id: 't1', name: 'run_command', preview: { command: { pattern: 'npm test' } } } as never) } })
    expect(approvals.commandChoice('t1')).toEqual({ network: false, pattern: 'npm test' })
    approvals.setCommandChoice('t1', { network: true })
    await approvals.allowAlways('t1')
    expect(backend.callsOf('AllowCommand')).toEqual([['t1', true, 'npm test']])
    expect(reread).toBe(1)
  })

  it('do nothing for "always allow" of a command with no prefix written', async () => {
    const backend = new FakeBackend()
    const cell = new StateCell(backend)
    const approvals = new Approvals(cell, async () => {})
    cell.set({ chats: { c1: withCard({ id: 't1', name: 'run_command' }) } })
    await approvals.allowAlways('t1')
    expect(backend.callsOf('AllowCommand')).toEqual([])
    expect(cell.get().decisions).toEqual({})
    expect(approvals.commandChoice('t9')).toBeNull()
  })
})
