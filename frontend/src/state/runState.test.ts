import { describe, expect, it } from 'vitest'
import { emptyChat, newMessage, type ChatState, type MessageView } from './chatReducer'
import { runActivity, runStateText } from './runState'

function answer(over: Partial<MessageView>): MessageView {
  return { ...newMessage('a1', 'assistant', 'r1'), ...over }
}

function running(over: Partial<ChatState>, m?: MessageView): ChatState {
  const s = { ...emptyChat('c1'), phase: 'streaming' as const, busy: true, runId: 'r1', ...over }
  if (m) return { ...s, messages: { [m.id]: m }, timeline: [...s.timeline, { kind: 'message', id: m.id }] }
  return s
}

describe('what the header says a run does', () => {
  it('says Thinking… while the thought streams, and Answering… once the answer does', () => {
    expect(runStateText(running({}, answer({ thinking: 'hm' })))).toBe('Thinking…')
    expect(runStateText(running({}, answer({ thinking: 'hm', content: 'Hi' })))).toBe('Answering…')
  })

  it('says the server is waited for while it does not answer, not that the model loads', () => {
    const s = running({
      phase: 'submitted',
      loadingModel: { model: 'qwen3:4b', since: 0 },
      timeline: [{ kind: 'notice', id: 'retry:r1', tone: 'info', text: 'Ollama is not answering yet; trying again in 2s (attempt 1).' }],
    })
    expect(runActivity(s).kind).toBe('waiting_server')
    expect(runStateText(s)).toBe('Waiting for the server to answer…')
  })

  it('says the model loads while it loads, in any phase', () => {
    expect(runStateText(running({ phase: 'submitted', loadingModel: { model: 'qwen3:4b', since: 0 } }))).toBe('Loading qwen3:4b…')
    expect(runStateText(running({ loadingModel: { model: 'qwen3:4b', since: 0 } }))).toBe('Loading qwen3:4b…')
  })

  it('says nothing of an idle chat', () => {
    expect(runStateText(emptyChat('c1'))).toBe('')
  })
})
