import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../backend'
import { contextUse } from '../components/ContextGauge'
import { chatFromSnapshot, emptyChat, reduceChat, type ChatState } from './chatReducer'

// What the window shows of the ways real local models misbehave: loops, loading, recovered
// calls, empty answers.

function ev(seq: number, e: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent {
  return { v: 1, seq, chatId: 'c1', runId: 'r1', messageId: 'm1', at: '2025-01-01T00:00:00Z', ...e }
}

function apply(events: AgentEvent[], start: ChatState = emptyChat('c1')): ChatState {
  return events.reduce(reduceChat, start)
}

function notices(s: ChatState): string[] {
  return s.timeline.flatMap((e) => (e.kind === 'notice' ? [e.text] : []))
}

describe('a run stopped as a loop', () => {
  it('says which call was repeated, in the sentence of the run', () => {
    const sentence = 'The model called list_dir {"path":"."} 3 times in a row with the same arguments; the run was stopped as a loop.'
    const s = apply([ev(1, { type: 'run.finished', stopReason: 'loop', message: sentence })])
    expect(notices(s)).toEqual([sentence])
    expect(s.timeline[0]).toMatchObject({ tone: 'error' })
  })

  it('still says it stopped as a loop without a sentence', () => {
    const s = apply([ev(1, { type: 'run.finished', stopReason: 'loop' })])
    expect(notices(s)[0]).toMatch(/repeating the same calls/)
  })
})

describe('a call the model wrote as text', () => {
  it('marks its card recovered, live and from the store', () => {
    const s = apply([
      ev(1, { type: 'tool.call', toolCallId: 't1', name: 'write_file', state: 'running', recovered: true }),
      ev(2, { type: 'tool.result', toolCallId: 't1', ok: true, recovered: true }),
    ])
    expect(s.tools.t1).toMatchObject({ state: 'completed', recovered: true })
    const plain = apply([ev(1, { type: 'tool.call', toolCallId: 't2', name: 'read_file', state: 'running' })])
    expect(plain.tools.t2.recovered).toBe(false)
  })

  it('marks a waiting card written as text from its origin, and a copied call as not run, copied', () => {
    const s = apply([
      ev(1, { type: 'tool.call', toolCallId: 't1', name: 'delete_path', state: 'awaiting_approval', origin: 'text' }),
      ev(2, { type: 'tool.call', toolCallId: 't2', name: 'delete_path', state: 'pending', origin: 'text' }),
      ev(3, { type: 'tool.result', toolCallId: 't2', ok: false, notRun: 'copied', recovered: true, output: 'not run: this call was copied' }),
    ])
    expect(s.tools.t1).toMatchObject({ state: 'awaiting_approval', recovered: true })
    expect(s.tools.t2).toMatchObject({ state: 'not_run', notRun: 'copied', recovered: true })
  })
})

describe('a chat opened from the store', () => {
  it('shows a recovered call as recovered', () => {
    const s = chatFromSnapshot({
      chat: { id: 'c1', title: 't' },
      messages: [{ id: 'm1', chatId: 'c1', role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'echo', recovered: true }], complete: true }],
      toolCalls: [{ id: 't1', chatId: 'c1', messageId: 'm1', name: 'echo', pending: false, ok: true, output: 'x', recovered: true }],
      phase: 'idle',
      liveRunId: '',
    })
    expect(s.tools.t1.recovered).toBe(true)
  })

  it('shows a record whose origin is text as written as text', () => {
    const s = chatFromSnapshot({
      chat: { id: 'c1', title: 't' },
      messages: [{ id: 'm1', chatId: 'c1', role: 'assistant', content: '', toolCalls: [{ id: 't1', name: 'echo' }], complete: true }],
      toolCalls: [{ id: 't1', chatId: 'c1', messageId: 'm1', name: 'echo', pending: false, ok: false, awaitingApproval: true, origin: 'text' }],
      phase: 'awaiting_approval',
      liveRunId: '',
      toolStates: { t1: 'awaiting_approval' },
    })
    expect(s.tools.t1).toMatchObject({ state: 'awaiting_approval', recovered: true })
  })
})

// Which answer is empty is decided by the Go side (agentloop.IsEmptyAnswer, tested in
// agentloop/emptyanswer_test.go); the window marks what it is told.
describe('an empty answer', () => {
  it('is marked empty when the Go side says it has no text and no call', () => {
    const s = apply([
      ev(1, { type: 'message.started', role: 'assistant' }),
      ev(2, { type: 'message.completed', doneReason: 'stop', empty: true, usage: { promptTokens: 5, evalTokens: 1, evalMs: 1, tokensPerSec: 1 } }),
    ])
    expect(s.messages.m1.empty).toBe(true)
  })

  it('is not empty when it called a tool or said something (the Go side does not say it is)', () => {
    const called = apply([
      ev(1, { type: 'message.started', role: 'assistant' }),
      ev(2, { type: 'tool.call', toolCallId: 't1', name: 'echo', state: 'pending' }),
      ev(3, { type: 'message.completed', doneReason: 'stop' }),
    ])
    expect(called.messages.m1.empty).toBe(false)
    const said = apply([ev(1, { type: 'text.delta', text: 'hi' }), ev(2, { type: 'message.completed', doneReason: 'stop' })])
    expect(said.messages.m1.empty).toBe(false)
  })

  it('is marked empty in a chat opened from the store when the Go side lists it', () => {
    const msg = (id: string) => ({ id, chatId: 'c1', role: 'assistant', content: '', complete: true, doneReason: 'stop' })
    const s = chatFromSnapshot({ chat: { id: 'c1', title: 't' }, messages: [msg('a1'), msg('a2')], toolCalls: [], phase: 'idle', liveRunId: '', emptyAnswers: ['a2'] })
    expect(s.messages.a1.empty).toBe(false)
    expect(s.messages.a2.empty).toBe(true)
  })
})

describe('a model being loaded', () => {
  it('is shown from model.loading until the answer starts', () => {
    const loading = apply([ev(1, { type: 'model.loading', model: 'qwen3:4b' })])
    expect(loading.loadingModel).toMatchObject({ model: 'qwen3:4b', since: Date.parse('2025-01-01T00:00:00Z') })
    expect(apply([ev(2, { type: 'thinking.delta', text: 'hm' })], loading).loadingModel).toBeNull()
    expect(apply([ev(2, { type: 'text.delta', text: 'hi' })], loading).loadingModel).toBeNull()
  })
})

describe('the context gauge', () => {
  it('reads how full the context was at the latest answer', () => {
    const s = apply([
      ev(1, { type: 'message.completed', messageId: 'a1', doneReason: 'stop', usage: { numCtx: 4096, contextTokens: 1024 } }),
      ev(2, { type: 'message.completed', messageId: 'a2', doneReason: 'stop', usage: { numCtx: 4096, contextTokens: 3000 } }),
      ev(3, { type: 'context.cut', message: 'The conversation (about 6000 tokens) did not fit the model\'s context of 4096 tokens.' }),
    ])
    expect(contextUse(s)).toEqual({ used: 3000, size: 4096, answered: 4096 })
    expect(notices(s)).toEqual(["The conversation (about 6000 tokens) did not fit the model's context of 4096 tokens."])
    expect(contextUse(emptyChat('c2'))).toBeNull()
  })
})

describe('the project instructions', () => {
  it('are shown first in the chat, live and from the store', () => {
    const live = apply([
      ev(1, { type: 'message.started', role: 'user', messageId: 'u1' }),
      ev(2, { type: 'message.started', role: 'system', messageId: 's1', name: 'AGENTS.md' }),
      ev(3, { type: 'text.delta', messageId: 's1', text: '# Project instructions\n\nUse tabs.' }),
      ev(4, { type: 'message.completed', messageId: 's1', doneReason: 'stop' }),
    ])
    expect(live.timeline.map((e) => e.id)).toEqual(['s1', 'u1'])
    expect(live.messages.s1).toMatchObject({ role: 'system', instructions: 'AGENTS.md', empty: false })
    const stored = chatFromSnapshot({
      chat: { id: 'c1', title: 't' },
      messages: [
        { id: 's1', chatId: 'c1', role: 'system', content: 'Use tabs.', instructions: 'AGENTS.md, settings', complete: true },
        { id: 'u1', chatId: 'c1', role: 'user', content: 'hi', complete: true },
        { id: 'x', chatId: 'c1', role: 'system', content: 'an ordinary system message', complete: true },
      ],
      toolCalls: [],
      phase: 'idle',
      liveRunId: '',
    })
    expect(stored.timeline.map((e) => e.id)).toEqual(['s1', 'u1'])
    expect(stored.messages.s1.instructions).toBe('AGENTS.md, settings')
  })
})

describe('the summary of older turns', () => {
  it('is shown where it was made, live and from the store', () => {
    const live = apply([
      ev(1, { type: 'message.started', role: 'user', messageId: 'u1' }),
      ev(2, { type: 'message.started', role: 'system', messageId: 's1', kind: 'summary', droppedMessages: 4 }),
      ev(3, { type: 'text.delta', messageId: 's1', text: 'The user asked for a page.' }),
    ])
    expect(live.timeline.map((e) => e.id)).toEqual(['u1', 's1'])
    expect(live.messages.s1).toMatchObject({ role: 'system', summary: true, content: 'The user asked for a page.' })
    const stored = chatFromSnapshot({
      chat: { id: 'c1', title: 't' },
      messages: [
        { id: 'u1', chatId: 'c1', role: 'user', content: 'hi', complete: true },
        { id: 's1', chatId: 'c1', role: 'system', content: 'The user said hi.', summaryOf: 'u1', complete: true },
      ],
      toolCalls: [],
      phase: 'idle',
      liveRunId: '',
    })
    expect(stored.messages.s1.summary).toBe(true)
  })
})
