// Whether a stopped run left an answer to go on from, read from what the chat holds.

import type { ChatState } from './chatReducer'

/**
 * Whether the chat holds something of an answer after its last question: text of the model's,
 * or a tool call it made. Continue goes on from that; with nothing there (a run stopped or
 * killed before any answer text was stored), "Continue" would follow the question itself, and
 * only Regenerate (asking again) makes sense.
 */
export function holdsAnswerToContinue(chat: Pick<ChatState, 'timeline' | 'messages'>): boolean {
  for (let i = chat.timeline.length - 1; i >= 0; i--) {
    const e = chat.timeline[i]
    if (e.kind === 'tool') return true
    if (e.kind !== 'message') continue
    const m = chat.messages[e.id]
    if (!m || m.role === 'user') return false
    if (m.role === 'assistant' && m.content.trim() !== '') return true
  }
  return false
}
