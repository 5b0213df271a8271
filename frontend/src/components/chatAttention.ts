import { oldestWaitingCard, waitingOffer, type ChatState } from '../state/chatReducer'

/**
 * What in the chat asks to be seen: the user's newest message (one just sent), the call waiting
 * for approval and the summary offer waiting for an answer. It changes when one of them
 * appears; the chat then goes to its end even when the user had scrolled up, so that a run
 * they started or a question put to them is never below the fold.
 */
export function attentionKey(chat: ChatState | undefined): string {
  if (!chat) return ''
  let sent = ''
  for (let i = chat.timeline.length - 1; i >= 0; i--) {
    const e = chat.timeline[i]
    if (e.kind === 'message' && chat.messages[e.id]?.role === 'user') {
      sent = e.id
      break
    }
  }
  return [sent, oldestWaitingCard(chat, {})?.id ?? '', waitingOffer(chat)?.id ?? ''].join('\n')
}
