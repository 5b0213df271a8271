import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../backend'
import { FakeBackend, FakeFrames } from '../fakeBackend'
import { StateCell } from './appState'
import { runningToolIds } from '../test/runningToolIds'
import { Feed, type FeedHooks } from './feed'

// A feed on its own: a state cell, frames driven by hand, and hooks that record what the
// other concerns were handed.
function setup(hooks: Partial<FeedHooks> = {}) {
  const backend = new FakeBackend()
  const frames = new FakeFrames()
  const cell = new StateCell(backend)
  const running = () => runningToolIds(cell)
  const applied: string[][] = []
  const feed = new Feed(
    cell,
    {
      takeOther: () => false,
      notice: () => {},
      afterEvents: (_id, _evs, chat) => chat,
      applied: (byChat) => applied.push([...byChat.keys()]),
      ...hooks,
    },
    { requestFrame: frames.request, runningToolIdsInDom: running },
  )
  return { backend, frames, cell, feed, applied }
}

function ev(seq: number, e: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent {
  return { v: 1, seq, chatId: 'c1', runId: 'r1', messageId: 'm1', at: '2025-01-01T00:00:00Z', ...e }
}

describe('the feed', () => {
  it('shows a card running for two frames before its result, and acknowledges the batch with it running', () => {
    const { backend, frames, cell, feed } = setup()
    feed.ingest([
      ev(1, { type: 'tool.call', toolCallId: 't1', name: 'write_file', state: 'running' }),
      ev(2, { type: 'tool.result', toolCallId: 't1', ok: true }),
    ])
    expect(cell.get().chats.c1.tools.t1.state).toBe('running')
    frames.tick()
    expect(cell.get().chats.c1.tools.t1.state).toBe('running')
    frames.tick()
    expect(cell.get().chats.c1.tools.t1.state).toBe('completed')
    expect(backend.callsOf('Painted')).toEqual([[2, ['t1']]])
  })

  it('applies deltas once per frame, merged, and before the next lifecycle event of their chat', () => {
    const { frames, cell, feed } = setup()
    let notified = 0
    cell.subscribe(() => notified++)
    feed.ingest([ev(1, { type: 'message.started', role: 'assistant' }), ev(2, { type: 'text.delta', text: 'Hel' })])
    feed.ingest([ev(3, { type: 'text.delta', text: 'lo' })])
    expect(cell.get().chats.c1.messages.m1.content).toBe('')
    const before = notified
    frames.tick()
    expect(cell.get().chats.c1.messages.m1.content).toBe('Hello')
    expect(notified - before).toBe(1)
    feed.ingest([ev(4, { type: 'text.delta', text: '!' }), ev(5, { type: 'message.completed', doneReason: 'stop' })])
    expect(cell.get().chats.c1.messages.m1.content).toBe('Hello!')
  })

  it('hands events of no chat to their concern, and tells which chats a batch changed', () => {
    const taken: string[] = []
    const { cell, feed, applied } = setup({
      takeOther: (e) => (e.type === 'pull.progress' ? (taken.push(e.model ?? ''), true) : false),
    })
    feed.ingest([
      ev(1, { type: 'pull.progress', chatId: '', model: 'qwen3:4b', status: 'pulling' }),
      ev(2, { type: 'phase', phase: 'streaming', busy: true, chatId: 'c2' }),
    ])
    expect(taken).toEqual(['qwen3:4b'])
    expect(Object.keys(cell.get().chats)).toEqual(['c2'])
    expect(applied).toEqual([['c2']])
  })

  it('lets another concern keep a changed chat state (queued messages leave it)', () => {
    const { cell, feed } = setup({ afterEvents: (_id, _evs, chat) => ({ ...chat, timeline: [] }) })
    feed.ingest([ev(1, { type: 'message.started', role: 'user', text: 'hi' })])
    expect(cell.get().chats.c1.messages.m1).toBeDefined()
    expect(cell.get().chats.c1.timeline).toEqual([])
  })
})
