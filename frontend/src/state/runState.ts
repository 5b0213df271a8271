// What a chat's run is doing, in one place: the header's run state and the chat's own notes
// (the model being loaded, the server not answering, the thought streaming) read it from here,
// so that the two never say different things.

import type { ChatState } from './chatReducer'

export type RunActivity =
  | { kind: 'idle' }
  /** The server did not answer; the run tries again (the chat shows the retry notice). */
  | { kind: 'waiting_server' }
  /** The server loads the model before it answers (the chat shows the loading note). */
  | { kind: 'loading'; model: string; since: number }
  /** The model's thought streams (the chat shows it, counting). */
  | { kind: 'thinking' }
  | { kind: 'phase' }

const retryNoticePrefix = 'retry:'

/** What the chat's run is doing now, the likeliest to matter to the user first. */
export function runActivity(chat: ChatState): RunActivity {
  if (chat.phase === 'idle') return { kind: 'idle' }
  if (chat.timeline.some((e) => e.kind === 'notice' && e.id.startsWith(retryNoticePrefix))) return { kind: 'waiting_server' }
  if (chat.loadingModel) return { kind: 'loading', model: chat.loadingModel.model, since: chat.loadingModel.since }
  if (chat.phase === 'streaming') {
    const last = chat.timeline[chat.timeline.length - 1]
    const m = last?.kind === 'message' ? chat.messages[last.id] : undefined
    if (m && m.role === 'assistant' && !m.complete && !m.content && m.thinking) return { kind: 'thinking' }
  }
  return { kind: 'phase' }
}

const phaseLabels: Record<string, string> = {
  submitted: 'Sending…',
  streaming: 'Answering…',
  tools: 'Running tools…',
  continuing: 'Reading the results…',
  awaiting_approval: 'Waiting for your approval',
  awaiting_summary: 'Waiting for your answer: summarize older messages?',
}

/** The header's words for the chat's run ('' when it is idle). */
export function runStateText(chat: ChatState): string {
  const a = runActivity(chat)
  switch (a.kind) {
    case 'idle':
      return ''
    case 'waiting_server':
      return 'Waiting for the server to answer…'
    case 'loading':
      return `Loading ${a.model || 'the model'}…`
    case 'thinking':
      return 'Thinking…'
    case 'phase':
      return phaseLabels[chat.phase] ?? ''
  }
}
