import { useEffect, useState, type ReactNode } from 'react'
import { errorText, type ChatHit, type ChatSummary } from '../backend'
import { focusComposer } from '../keyboard/menus'
import { useAppState, useStore } from '../state/useAppState'
import { chatDate } from './ChatList'
import { revealMessage } from './transcriptReveal'
import { Dialog } from './Dialog'
import { baseName } from './format'
import { ComboList } from './ComboList'

/** How long typing pauses before the search runs. */
export const searchDelayMs = 120

/** How many of the newest chats the dialog lists before anything is typed. */
export const recentChatsShown = 8

/**
 * text with each word of query in it marked (<mark>), whatever its case, as the search found it.
 */
export function highlighted(text: string, query: string): ReactNode[] {
  const words = query
    .split(/\s+/)
    .filter(Boolean)
    .map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  if (words.length === 0) return [text]
  // the longest first, so that "hello" is marked whole beside "he"
  const re = new RegExp(`(${words.sort((a, b) => b.length - a.length).join('|')})`, 'gi')
  return text.split(re).map((part, i) => (i % 2 === 1 ? <mark key={i}>{part}</mark> : part))
}

/** The newest chats but the one open, newest first: what Enter opens at once is another chat. */
function recentChats(chats: readonly ChatSummary[], openChat: string | null): ChatHit[] {
  return chats
    .filter((c) => c.id !== openChat)
    .slice(0, recentChatsShown)
    .map((chat) => ({ chat }))
}

/**
 * Ctrl+K: finds chats by title and by what was said in them (the store searches). Before
 * anything is typed it lists the newest chats but the one open, as a quick-open list does. Typing searches, ↑/↓
 * move, Enter opens the chat, Esc closes.
 */
export function SearchDialog({ onClose }: { onClose: () => void }) {
  const store = useStore()
  const [query, setQuery] = useState('')
  const [hits, setHits] = useState<ChatHit[]>([])
  const [error, setError] = useState('')
  const [searched, setSearched] = useState('')
  const chatList = useAppState((s) => s.chatList)
  const openChat = useAppState((s) => s.activeChatId)

  useEffect(() => {
    const q = query.trim()
    if (!q) return
    let live = true
    const timer = setTimeout(() => {
      store
        .searchChats(q)
        .then((found) => {
          if (!live) return
          setHits(found)
          setSearched(q)
          setError('')
        })
        .catch((err) => live && setError(errorText(err)))
    }, searchDelayMs)
    return () => {
      live = false
      clearTimeout(timer)
    }
  }, [query, store])

  const typed = query.trim() !== ''
  // The recent chats are those of the moment the list is shown, as search results are: a run
  // ending elsewhere reorders the chat list, and must not move another chat under the highlight.
  const [recent, setRecent] = useState(() => recentChats(chatList, openChat))
  const [listedTyped, setListedTyped] = useState(typed)
  if (listedTyped !== typed) {
    setListedTyped(typed)
    if (!typed) setRecent(recentChats(chatList, openChat))
  } else if (!typed && recent.length === 0 && chatList.some((c) => c.id !== openChat)) {
    setRecent(recentChats(chatList, openChat)) // the list came after the dialog opened
  }
  const shown = typed ? hits : recent
  const marked = typed ? searched : ''
  const open = (hit: ChatHit) => {
    onClose()
    // the chat opens at the message the words were found in, however far up
    void store.selectChat(hit.chat.id).then(() => {
      const id = hit.messageId
      if (id) setTimeout(() => revealMessage(id), 50)
    })
    focusComposer()
  }
  return (
    <Dialog
      label="Search chats"
      testId="search-dialog"
      className="search"
      top
      onClose={() => {
        onClose()
        focusComposer()
      }}
    >
      <ComboList
        id="search-field"
        label="Search chats"
        placeholder="Search chats by title or by what was said…"
        value={query}
        onType={setQuery}
        between={error && <div className="tool-error">{error}</div>}
        listId="search-results"
        listLabel={typed ? 'Chats found' : 'Recent chats'}
        listClassName="search-results"
        items={shown}
        choose={open}
        option={(h) => ({
          key: h.chat.id,
          className: 'search-hit',
          'data-testid': 'search-hit',
          content: (
            <>
              <div className="search-hit-title">
                <span>{highlighted(h.chat.title || 'Untitled', marked)}</span>
                <span className="muted small search-hit-when">
                  {h.chat.workspace ? `${baseName(h.chat.workspace)} · ` : ''}
                  {chatDate(h.chat.updatedAt)}
                </span>
              </div>
              {h.snippet && <div className="muted small search-snippet">{highlighted(h.snippet, marked)}</div>}
            </>
          ),
        })}
      >
        {!typed && shown.length === 0 && <div className="muted pad">{chatList.length > 0 ? 'No other chats.' : 'No chats yet.'}</div>}
        {query.trim() && searched === query.trim() && shown.length === 0 && (
          <div className="muted pad">No chat holds “{query.trim()}”.</div>
        )}
      </ComboList>
    </Dialog>
  )
}
