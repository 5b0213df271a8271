import { useEffect, useState } from 'react'
import { errorText, type ChatHit } from '../backend'
import { ComboField, useListNav } from '../keyboard/listNav'
import { focusComposer } from '../keyboard/menus'
import { useStore } from '../state/useAppState'
import { chatDate } from './ChatList'
import { Dialog } from './Dialog'
import { baseName } from './Header'
import { ListOption } from './ListOption'

/** How long typing pauses before the search runs. */
export const searchDelayMs = 120

/**
 * Ctrl+K: finds chats by title and by what was said in them (the store searches). Typing
 * searches, ↑/↓ move, Enter opens the chat, Esc closes.
 */
export function SearchDialog({ onClose }: { onClose: () => void }) {
  const store = useStore()
  const [query, setQuery] = useState('')
  const [hits, setHits] = useState<ChatHit[]>([])
  const [error, setError] = useState('')
  const [searched, setSearched] = useState('')

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

  const shown = query.trim() ? hits : []
  const open = (i: number) => {
    const hit = shown[i]
    if (!hit) return
    onClose()
    // the chat opens at the message the words were found in, when it is on the page
    void store.selectChat(hit.chat.id).then(() => {
      if (!hit.messageId) return
      setTimeout(() => {
        const found = document.querySelector(`[data-message-id="${(hit.messageId ?? '').replace(/["\\]/g, '')}"]`)
        found?.scrollIntoView?.({ block: 'center' })
        found?.classList.add('found')
      }, 50)
    })
    focusComposer()
  }
  const nav = useListNav(shown.length, open)
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
      <ComboField
        id="search-field"
        listId="search-results"
        label="Search chats"
        placeholder="Search chats by title or by what was said…"
        value={query}
        nav={nav}
        onType={setQuery}
      />
      {error && <div className="tool-error">{error}</div>}
      <div role="listbox" id="search-results" aria-label="Chats found" className="search-results">
        {query.trim() && searched === query.trim() && shown.length === 0 && (
          <div className="muted pad">No chat holds “{query.trim()}”.</div>
        )}
        {shown.map((h, i) => (
          <ListOption
            fieldId="search-field"
            index={i}
            nav={nav}
            key={h.chat.id}
            data-testid="search-hit"
            className="search-hit"
            onPick={() => open(i)}
          >
            <div className="search-hit-title">
              <span>{h.chat.title || 'Untitled'}</span>
              <span className="muted small">
                {h.chat.workspace ? `${baseName(h.chat.workspace)} · ` : ''}
                {chatDate(h.chat.updatedAt)}
              </span>
            </div>
            {h.snippet && <div className="muted small search-snippet">{h.snippet}</div>}
          </ListOption>
        ))}
      </div>
    </Dialog>
  )
}
