import { useEffect, useMemo, useRef, useState } from 'react'
import type { ChatSummary } from '../backend'
import { focusComposer } from '../keyboard/menus'
import { helpShortcut, newChatShortcut, searchShortcut } from '../keyboard/shortcuts'
import type { ChatState } from '../state/chatReducer'
import type { AppState } from '../state/store'
import { useAppState, useStore } from '../state/useAppState'
import { chatRows, type ChatRow } from './chatRows'
import { baseName } from './format'
import { Icon } from './icons'
import { ShortcutButton } from './ShortcutButton'
import { useChatWindow } from './useChatWindow'

/** When a chat was last active, as a list shows it: the time today, else the day. */
export function chatDate(iso: string, now = new Date()): string {
  const d = new Date(iso)
  if (Number.isNaN(d.getTime())) return ''
  if (d.toDateString() === now.toDateString()) return d.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' })
  const sameYear = d.getFullYear() === now.getFullYear()
  return d.toLocaleDateString(undefined, sameYear ? { day: 'numeric', month: 'short' } : { day: 'numeric', month: 'short', year: 'numeric' })
}

export interface ChatGroup {
  folder: string
  /** The folder's name as the list shows it; '' when the chats are all of one folder. */
  heading: string
  chats: ChatSummary[]
}

/**
 * The chats grouped by their folder, the group of the newest chat first and each newest first
 * (chats arrive newest first). Of one folder only, they are one group without a heading. Two
 * folders of the same name are told apart by their parent.
 */
export function groupByFolder(chats: ChatSummary[]): ChatGroup[] {
  const groups = new Map<string, ChatSummary[]>()
  for (const c of chats) {
    const key = c.workspace ?? ''
    const list = groups.get(key)
    if (list) list.push(c)
    else groups.set(key, [c])
  }
  if (groups.size <= 1) return [{ folder: chats[0]?.workspace ?? '', heading: '', chats }]
  const names = [...groups.keys()].map((f) => baseName(f))
  return [...groups.entries()].map(([folder, list]) => {
    const name = baseName(folder)
    const twin = names.filter((n) => n === name).length > 1
    const parts = folder.split(/[\\/]/).filter(Boolean)
    return { folder, heading: !folder ? 'No folder' : twin ? parts.slice(-2).join('/') : name, chats: list }
  })
}

/** The chats that wait for the user's answer: an approval or a summary offer (seen live, or listed so). */
export function waitingChatIds(s: AppState): string[] {
  return s.chatList.filter((c) => waits(phaseOf(s.chats[c.id], c))).map((c) => c.id)
}

/** The phase of each chat that waits for the user's answer (see waitingChatIds). */
export function waitingPhases(s: AppState): string[] {
  return s.chatList.map((c) => phaseOf(s.chats[c.id], c)).filter(waits)
}

function waits(phase: string): boolean {
  return phase === 'awaiting_approval' || phase === 'awaiting_summary'
}

/** A handler that does act, then gives the focus back to the composer. */
function thenComposer(act: () => void): () => void {
  return () => {
    act()
    focusComposer()
  }
}

/**
 * A chat's button as a screen reader says it: "Fix the header, workspace, 06:55 PM", after
 * "Waiting for your answer" or "running" where it is so. Named whole because WebKit joins the texts
 * of the title and the line under it without a space.
 */
export function chatItemName(title: string, { busy, waiting, folder, date }: { busy: boolean; waiting: boolean; folder: string; date: string }): string {
  return [busy && 'running', waiting && 'Waiting for your answer', title || 'Untitled', folder, date].filter(Boolean).join(', ')
}

function ChatListItem({
  chat,
  active,
  busy,
  waiting,
  showFolder,
  tabbable,
  position,
}: {
  chat: ChatSummary
  active: boolean
  busy: boolean
  waiting: boolean
  /** Said on the item when no group heading says it. */
  showFolder: boolean
  /** The one chat of the list in the Tab order; the keys move from it to the others. */
  tabbable: boolean
  /** Its place in its group, and the group's size, for assistive technology (the rest is not rendered). */
  position: { pos: number; size: number }
}) {
  const tab = tabbable ? 0 : -1
  const store = useStore()
  const folder = showFolder && chat.workspace ? baseName(chat.workspace) : ''
  const date = chatDate(chat.updatedAt)
  const [mode, setMode] = useState<'view' | 'rename' | 'confirm-delete'>('view')
  const [title, setTitle] = useState(chat.title)
  // Esc on the delete prompt gives the keys back to the trash button it was opened from.
  const trashRef = useRef<HTMLButtonElement>(null)
  const [refocusTrash, setRefocusTrash] = useState(false)
  useEffect(() => {
    if (mode === 'view' && refocusTrash) {
      trashRef.current?.focus()
      setRefocusTrash(false)
    }
  }, [mode, refocusTrash])

  if (mode === 'rename') {
    // The keys go to the message box before the field goes: a text field taken out of the page
    // while it has the focus ends WebKit's web process when assistive technology is listening
    // (the window goes blank and deaf).
    const leave = () => {
      const box = document.getElementById('composer')
      if (box instanceof HTMLTextAreaElement && !box.disabled) box.focus()
      setMode('view')
      focusComposer()
    }
    return (
      <li className="chat-item active">
        <input
          autoFocus
          aria-label="Chat title"
          value={title}
          onChange={(e) => setTitle(e.target.value)}
          onBlur={() => setMode('view')}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && title.trim()) {
              e.preventDefault()
              void store.renameChat(chat.id, title.trim())
              leave()
            } else if (e.key === 'Escape') {
              e.preventDefault() // closes the field; it does not stop a run
              setTitle(chat.title)
              leave()
            }
          }}
        />
      </li>
    )
  }
  if (mode === 'confirm-delete') {
    return (
      <li
        className="chat-item confirm"
        data-testid="confirm-delete"
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.preventDefault() // closes the prompt; it does not stop a run
            e.stopPropagation()
            setRefocusTrash(true)
            setMode('view')
          }
        }}
      >
        <span>Delete “{chat.title || 'Untitled'}”?</span>
        <div className="row">
          <button type="button" className="danger" onClick={thenComposer(() => void store.deleteChat(chat.id))}>
            Delete
          </button>
          <button type="button" autoFocus onClick={thenComposer(() => setMode('view'))}>
            Cancel
          </button>
        </div>
      </li>
    )
  }
  return (
    <li
      className={`chat-item${active ? ' active' : ''}`}
      data-testid="chat-item"
      data-chat-id={chat.id}
      aria-posinset={position.pos}
      aria-setsize={position.size}
    >
      <button
        type="button"
        tabIndex={tab}
        className="chat-title"
        onClick={thenComposer(() => void store.selectChat(chat.id))}
        aria-label={chatItemName(chat.title, { busy, waiting, folder, date })}
        title={`${chat.title}${chat.workspace ? `\n${chat.workspace}` : ''}${chat.model ? `\n${chat.model}` : ''}`}
      >
        <span className="chat-title-line">
          {busy && <span className="busy-dot" role="img" aria-label="running" />}
          {waiting && (
            <span className="waiting-mark" role="img" aria-label="Waiting for your answer" data-testid="waiting-mark">
              !
            </span>
          )}
          <span className="chat-title-text">{chat.title || 'Untitled'}</span>
        </span>
        <span className="chat-meta muted small">
          <span className="chat-folder">{folder}</span>
          <span className="chat-date">{date}</span>
        </span>
      </button>
      <span className="chat-actions">
        <button
          type="button"
          title="Rename"
          tabIndex={tab}
          aria-label={`Rename ${chat.title || 'Untitled'}`}
          onClick={() => {
            setTitle(chat.title)
            setMode('rename')
          }}
        >
          <Icon name="pencil" />
        </button>
        <button
          ref={trashRef}
          type="button"
          title="Delete"
          tabIndex={tab}
          aria-label={`Delete ${chat.title || 'Untitled'}`}
          onClick={() => setMode('confirm-delete')}
        >
          <Icon name="trash" />
        </button>
      </span>
    </li>
  )
}

// The live phase once events or the store told it; until then the list's.
function phaseOf(live: ChatState | undefined, c: ChatSummary) {
  return live && (live.loaded || live.phaseSeq > 0) ? live.phase : c.phase
}

// Whether the chat is busy, from the same source as phaseOf: as the Go side said it.
function busyOf(live: ChatState | undefined, c: ChatSummary): boolean {
  return live && (live.loaded || live.phaseSeq > 0) ? live.busy : c.busy === true
}

type ChatItemRow = Extract<ChatRow, { kind: 'chat' }>

/** The rows in view by their group: whether the group's heading is among them, and its chats that are. */
function groupShown(rows: ChatRow[]): { group: number; head: boolean; rows: ChatItemRow[] }[] {
  const out: { group: number; head: boolean; rows: ChatItemRow[] }[] = []
  for (const r of rows) {
    let last = out[out.length - 1]
    if (!last || last.group !== r.group) {
      last = { group: r.group, head: false, rows: [] }
      out.push(last)
    }
    if (r.kind === 'head') last.head = true
    else last.rows.push(r)
  }
  return out
}

/**
 * The chats, newest first, with a busy dot on those running now. Only the rows in view are in
 * the page (useChatWindow), whatever the number of chats.
 */
export function ChatList({ onSearch, onHelp }: { onSearch?: () => void; onHelp?: () => void } = {}) {
  const store = useStore()
  const chats = useAppState((s) => s.chatList)
  const activeId = useAppState((s) => s.activeChatId)
  // A string, so that streaming (which changes the chats every frame) does not redraw the list.
  const busyIds = useAppState((s) =>
    s.chatList
      .filter((c) => busyOf(s.chats[c.id], c))
      .map((c) => c.id)
      .join(' '),
  )
  const busy = new Set(busyIds.split(' '))
  const waiting = new Set(useAppState((s) => waitingChatIds(s).join(' ')).split(' '))
  const navRef = useRef<HTMLElement>(null)
  const groups = useMemo(() => groupByFolder(chats), [chats])
  const { rows, chats: ordered, rowOf } = useMemo(() => chatRows(groups), [groups])
  const ids = useMemo(() => ordered.map((c) => c.id), [ordered])
  const win = useChatWindow(navRef, rows, rowOf, ids)
  const shownGroups = groupShown(rows.slice(win.start, win.end))
  const shownIds = shownGroups.flatMap((p) => p.rows.map((r) => r.chat.id))
  const tabId = [win.current, activeId].find((id) => id && shownIds.includes(id)) ?? shownIds[0]
  return (
    <aside className="sidebar">
      <div className="brand">Prototyper</div>
      <ShortcutButton
        shortcut={newChatShortcut}
        what="New chat"
        className="new-chat"
        data-testid="new-chat"
        onClick={thenComposer(() => store.newChat())}
      >
        + New chat
      </ShortcutButton>
      {onSearch && (
        <ShortcutButton
          shortcut={searchShortcut}
          what="Search chats"
          className="search-button"
          data-testid="search-button"
          onClick={onSearch}
        >
          <Icon name="search" /> Search <kbd>{searchShortcut.label}</kbd>
        </ShortcutButton>
      )}
      <nav aria-label="Chats" className="chat-scroll" ref={navRef} onKeyDown={win.onKeyDown} onFocus={win.onFocus}>
        <div aria-hidden="true" style={{ height: win.offsets[win.start] }} />
        {shownGroups.map(({ group, head, rows: shownRows }) => {
          const g = groups[group]
          return (
            <section key={g.folder} className="chat-group" aria-label={g.folder || 'No folder'}>
              {head && g.heading && (
                <h3 className="chat-group-head" title={g.folder} data-testid="chat-group">
                  <Icon name="folder" size={12} /> {g.heading}
                </h3>
              )}
              <ul className="chat-list">
                {shownRows.map((r) => (
                  <ChatListItem
                    key={r.chat.id}
                    chat={r.chat}
                    active={r.chat.id === activeId}
                    busy={busy.has(r.chat.id)}
                    waiting={waiting.has(r.chat.id)}
                    showFolder={!g.heading}
                    tabbable={r.chat.id === tabId}
                    position={{ pos: r.posInGroup + 1, size: g.chats.length }}
                  />
                ))}
              </ul>
            </section>
          )
        })}
        <div aria-hidden="true" style={{ height: win.offsets[rows.length] - win.offsets[win.end] }} />
      </nav>
      {onHelp && (
        <ShortcutButton shortcut={helpShortcut} what="Keyboard shortcuts" className="link help-button" onClick={onHelp}>
          Keyboard shortcuts <kbd>?</kbd>
        </ShortcutButton>
      )}
    </aside>
  )
}
