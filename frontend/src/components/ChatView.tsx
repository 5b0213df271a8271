import { useCallback, useLayoutEffect, useRef } from 'react'
import type { ChatState } from '../state/chatReducer'
import { useAppState, useStore } from '../state/useAppState'
import { Message } from './Message'
import { ToolCard } from './ToolCard'

/** The messages, tool cards and notices of one chat, in the order they happened. */
export function Timeline({ chat }: { chat: ChatState }) {
  const store = useStore()
  const decide = useCallback(
    (id: string, d: 'allow' | 'deny') => void store.decide(id, d, d === 'deny' ? 'denied in the window' : ''),
    [store],
  )
  return (
    <>
      {chat.timeline.map((e) => {
        if (e.kind === 'message') {
          const m = chat.messages[e.id]
          return m ? <Message key={e.id} message={m} /> : null
        }
        if (e.kind === 'tool') {
          const c = chat.tools[e.id]
          return c ? <ToolCard key={e.id} card={c} onDecide={decide} /> : null
        }
        return (
          <div key={e.id} className={`notice ${e.tone}`} role={e.tone === 'error' ? 'alert' : undefined} data-testid="notice">
            {e.tone === 'error' ? '⚠ ' : ''}
            {e.text}
          </div>
        )
      })}
      {chat.phase === 'submitted' && (
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
  const chat = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId] : undefined))
  const scroller = useRef<HTMLElement>(null)
  const stick = useRef(true)

  useLayoutEffect(() => {
    const el = scroller.current
    if (el && stick.current) el.scrollTop = el.scrollHeight
  })
  useLayoutEffect(() => {
    stick.current = true
  }, [activeId])

  const empty = !chat || chat.timeline.length === 0
  return (
    <section
      className="messages"
      ref={scroller}
      aria-live="polite"
      data-testid="messages"
      onScroll={(e) => {
        const el = e.currentTarget
        stick.current = el.scrollHeight - el.scrollTop - el.clientHeight < 40
      }}
    >
      {empty && !chat?.phase.match(/submitted/) ? (
        <div className="empty">Describe what to build. Prototyper writes the files in your workspace.</div>
      ) : (
        <div className="timeline">{chat && <Timeline chat={chat} />}</div>
      )}
    </section>
  )
}
