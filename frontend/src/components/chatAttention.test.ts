import { describe, expect, it } from 'vitest'
import { emptyChat, newCard, newMessage, type ChatState, type MessageView } from '../state/chatReducer'
import { attentionKey } from './chatAttention'

const message = (id: string, role: MessageView['role']): MessageView => ({ ...newMessage(id, role, 'r'), content: 'x', complete: true })

function withMessages(...ms: MessageView[]): ChatState {
  const chat = emptyChat('c')
  return { ...chat, messages: Object.fromEntries(ms.map((m) => [m.id, m])), timeline: ms.map((m) => ({ kind: 'message' as const, id: m.id })) }
}

describe('attentionKey', () => {
  it('changes when the user sends a message, not when an answer grows', () => {
    const before = attentionKey(withMessages(message('u1', 'user'), message('a1', 'assistant')))
    expect(attentionKey(withMessages(message('u1', 'user'), message('a1', 'assistant'), message('a2', 'assistant')))).toBe(before)
    expect(attentionKey(withMessages(message('u1', 'user'), message('a1', 'assistant'), message('u2', 'user')))).not.toBe(before)
  })

  it('changes when a call starts waiting for approval', () => {
    const chat = withMessages(message('u1', 'user'))
    const waiting: ChatState = {
      ...chat,
      tools: { t1: { ...newCard('t1', 'a1', 'r'), name: 'write_file', args: {}, state: 'awaiting_approval' } },
      timeline: [...chat.timeline, { kind: 'tool', id: 't1' }],
    }
    expect(attentionKey(waiting)).not.toBe(attentionKey(chat))
  })
})
