import { useCallback, useLayoutEffect, useRef, useState } from 'react'
import type { Decision } from '../backend'
import { oldestWaitingCard, terminalToolStates, type ChatState, type MessageView, type TimelineEntry } from '../state/chatReducer'
import { useAppState, useStore } from '../state/useAppState'
import { focusComposer } from '../keyboard/menus'
import { ItemBoundary } from './ItemBoundary'
import { Message } from './Message'
import { EditBox, MessageActions } from './MessageActions'
import { ErrorNotice } from './ErrorNotice'
import { ModelLoadingNote } from './ModelLoadingNote'
import { ToolCard } from './ToolCard'

/**
 * How much of a long chat stays in the page while the view follows its end: the newest entries
 * whose text adds up to about this many characters (some 10 screens). The oldest entry kept may
 * be cut: of a long answer only its last Markdown blocks are shown. Everything before is behind a
 * "Show earlier" button, so a chat that streams for hours keeps a steady DOM and memory instead
 * of one that grows with every answer, and that does not swing by a whole answer at a time.
 */
export const mountedChars = 40_000
const earlierStep = 20

/**
 * Where the page starts: the first timeline entry shown and, when that entry is an answer shown
 * only in part, the character offset in its text from which its Markdown blocks are shown (the
 * block holding that offset and every later one).
 */
export interface ShownFrom {
  entry: number
  from: number
}

const wholeChat: ShownFrom = { entry: 0, from: 0 }

function entrySize(chat: ChatState, e: TimelineEntry): number {
  if (e.kind === 'message') {
    const m = chat.messages[e.id]
    return m ? m.content.length + (m.complete ? 0 : m.thinking.length) : 0
  }
  if (e.kind === 'tool') return 300 + (chat.tools[e.id]?.details?.diff?.length ?? 0)
  return e.text.length
}

// A card that is not finished is never taken out of the page (the paint acknowledgement reports
// the running cards it finds in the DOM), nor is a message still streaming (it keeps its lexer).
function isLive(chat: ChatState, e: TimelineEntry): boolean {
  if (e.kind === 'message') return chat.messages[e.id]?.complete === false
  if (e.kind === 'tool') {
    const c = chat.tools[e.id]
    return !!c && !terminalToolStates.has(c.state)
  }
  return false
}

/** Where the page starts while the view follows the end of the chat. */
export function followStart(chat: ChatState, budget = mountedChars): ShownFrom {
  const t = chat.timeline
  let used = 0
  let i = t.length
  let from = 0
  while (i > 0) {
    const e = t[i - 1]
    const size = entrySize(chat, e)
    if (used + size > budget) {
      // Only the end of an answer fits: its last blocks are shown, up to the budget.
      const m = e.kind === 'message' ? chat.messages[e.id] : undefined
      const left = budget - used
      if (m?.role === 'assistant' && left > 0 && m.content.length > 0) {
        from = Math.max(0, m.content.length - left)
        i--
      }
      break
    }
    used += size
    i--
  }
  for (let j = 0; j < i; j++) if (isLive(chat, t[j])) return { entry: j, from: 0 }
  return { entry: i, from }
}

function earlier(a: ShownFrom, b: ShownFrom): ShownFrom {
  return a.entry < b.entry || (a.entry === b.entry && a.from <= b.from) ? a : b
}

/** An answer that ended with nothing in it: no text and no tool call. */
export function isEmptyAnswer(chat: ChatState, m: MessageView): boolean {
  if (m.role !== 'assistant' || !m.complete || m.content.trim() !== '') return false
  return !Object.values(chat.tools).some((c) => c.messageId === m.id)
}

/** The messages, tool cards and notices of one chat from entry `start` on, in the order they happened. */
export function Timeline({ chat, start = wholeChat }: { chat: ChatState; start?: ShownFrom }) {
  const store = useStore()
  // A decision spends the card's buttons: the focus goes on to the composer rather than to
  // nowhere.
  const decide = useCallback(
    (id: string, d: Decision) => {
      void store.decide(id, d)
      focusComposer()
    },
    [store],
  )
  const decisions = useAppState((s) => s.decisions)
  const versions = useAppState((s) => s.versions[chat.chatId])
  const editing = useAppState((s) => s.editing)
  const queued = useAppState((s) => s.queued[chat.chatId])
  const idle = chat.phase === 'idle'
  // The card the approval keys apply to; its Approve button takes the focus.
  const current = oldestWaitingCard(chat, decisions)?.id
  return (
    <>
      {chat.timeline.slice(start.entry).map((e, i) => {
        // Each item renders inside its own boundary: an error in one never blanks the chat.
        if (e.kind === 'message') {
          const m = chat.messages[e.id]
          if (!m) return null
          const version = versions?.find((v) => v.messageId === m.id)
          const waits = !!queued?.includes(m.id)
          return (
            <ItemBoundary key={e.id} what="message" resetKey={m}>
              {editing === m.id && (idle || waits) ? (
                <EditBox
                  message={m}
                  onDone={() => store.edit('')}
                  onSend={waits ? (text) => void store.editQueued(m.id, text) : undefined}
                />
              ) : (
                <>
                  <Message message={m} from={i === 0 ? start.from : 0} />
                  {isEmptyAnswer(chat, m) && (
                    <div className="notice info empty-answer" data-testid="empty-answer">
                      The model gave an empty answer. Regenerate (↻ below) asks again.
                    </div>
                  )}
                  {(m.role === 'user' || m.role === 'assistant') && (
                    <MessageActions message={m} idle={idle} version={version} queued={waits} onEdit={() => store.edit(m.id)} />
                  )}
                </>
              )}
            </ItemBoundary>
          )
        }
        if (e.kind === 'tool') {
          const c = chat.tools[e.id]
          return c ? (
            <ItemBoundary
              key={e.id}
              what="tool call"
              resetKey={c}
              attributes={{ 'data-tool-call-id': c.id, 'data-tool-state': c.state }}
            >
              <ToolCard card={c} onDecide={decide} decided={decisions[c.id]} current={c.id === current} />
            </ItemBoundary>
          ) : null
        }
        if (e.tone === 'error' && e.code) return <ErrorNotice key={e.id} code={e.code} message={e.text} />
        return (
          <div key={e.id} className={`notice ${e.tone}`} role={e.tone === 'error' ? 'alert' : undefined} data-testid="notice">
            {e.tone === 'error' ? '⚠ ' : ''}
            {e.text}
          </div>
        )
      })}
      {chat.loadingModel && <ModelLoadingNote model={chat.loadingModel.model} since={chat.loadingModel.since} />}
      {chat.phase === 'submitted' && !chat.loadingModel && (
        <div className="typing" data-testid="typing" aria-label="The model is starting">
          <span />
          <span />
          <span />
        </div>
      )}
    </>
  )
}

/** The active chat, scrolled to the end while the user has not scrolled up. */
export function ChatView() {
  const activeId = useAppState((s) => s.activeChatId)
  // Keyed by chat: another chat starts at its end with nothing pinned.
  return (
    <ItemBoundary key={activeId ?? ''} what="chat">
      <ChatScroller />
    </ItemBoundary>
  )
}

function ChatScroller() {
  const chat = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId] : undefined))
  const scroller = useRef<HTMLElement>(null)
  // null while the view follows the end; where the page starts once the user scrolled up or
  // asked for earlier entries, so nothing above the part being read moves.
  const [pinned, setPinned] = useState<ShownFrom | null>(null)
  const follow = chat ? followStart(chat) : wholeChat
  const start = pinned ? earlier(pinned, follow) : follow
  // Entries not shown in full above the page.
  const hidden = start.entry + (start.from > 0 ? 1 : 0)

  useLayoutEffect(() => {
    const el = scroller.current
    if (el && pinned === null) el.scrollTop = el.scrollHeight
  })

  const empty = !chat || chat.timeline.length === 0
  return (
    <section
      className="messages"
      ref={scroller}
      aria-live="polite"
      data-testid="messages"
      onScroll={(e) => {
        const el = e.currentTarget
        const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < 40
        if (atEnd && pinned !== null) setPinned(null)
        else if (!atEnd && pinned === null) setPinned(start)
      }}
    >
      {empty && !chat?.phase.match(/submitted/) ? (
        <div className="empty">Describe what to build. Prototyper writes the files in your workspace.</div>
      ) : (
        <div className="timeline">
          {hidden > 0 && (
            <button
              type="button"
              className="show-earlier"
              data-testid="show-earlier"
              onClick={() => setPinned({ entry: Math.max(0, hidden - earlierStep), from: 0 })}
            >
              Show earlier ({hidden})
            </button>
          )}
          {chat && <Timeline chat={chat} start={start} />}
        </div>
      )}
    </section>
  )
}
