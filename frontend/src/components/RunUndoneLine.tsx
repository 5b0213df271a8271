import type { ChatState, TimelineEntry } from '../state/chatReducer'

function runOf(chat: ChatState, e: TimelineEntry): string {
  if (e.kind === 'message') return chat.messages[e.id]?.role === 'user' ? '' : (chat.messages[e.id]?.runId ?? '')
  if (e.kind === 'tool') return chat.tools[e.id]?.runId ?? ''
  return ''
}

/**
 * Where each run whose changes stand undone says so: after its last entry, by entry index, the
 * line the Go side gives it (agentloop.UndoneOf, sent as OpenedChat.undoneRuns and with each
 * undo and redo).
 */
export function undoneLinesAfter(chat: ChatState): Map<number, string> {
  const lastOf = new Map<string, number>()
  chat.timeline.forEach((e, i) => {
    const r = runOf(chat, e)
    if (r && chat.undoneRuns[r]) lastOf.set(r, i)
  })
  return new Map([...lastOf].map(([run, i]) => [i, chat.undoneRuns[run]]))
}

/** "The changes made here were undone: index.html.", under the answer of a run an undo took back. */
export function RunUndoneLine({ text }: { text: string }) {
  return (
    <div className="run-undone" data-testid="run-undone" role="note">
      <span aria-hidden="true">↶ </span>
      {text}
    </div>
  )
}
