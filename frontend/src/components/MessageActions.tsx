import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import { copyText, type Version } from '../backend'
import type { MessageView } from '../state/chatReducer'
import { focusComposer } from '../keyboard/menus'
import { useStore } from '../state/useAppState'
import { Icon } from './icons'

/** A message as Markdown, the way Copy puts it on the clipboard. */
export function messageMarkdown(m: MessageView): string {
  return m.content
}

/** "< 2/3 >": which version of the history from this message is shown, and the others. */
export function VersionNav({ messageId, version }: { messageId: string; version: Version }) {
  const store = useStore()
  return (
    <span className="version-nav" role="group" aria-label="Versions" data-testid="version-nav">
      <button
        type="button"
        className="link"
        aria-label="Earlier version"
        title="Earlier version"
        disabled={version.index <= 1}
        onClick={() => void store.showVersion(messageId, version.index - 1)}
      >
        ‹
      </button>
      <span data-testid="version-index">
        {version.index}/{version.count}
      </span>
      <button
        type="button"
        className="link"
        aria-label="Later version"
        title="Later version"
        disabled={version.index >= version.count}
        onClick={() => void store.showVersion(messageId, version.index + 1)}
      >
        ›
      </button>
    </span>
  )
}

/**
 * What can be done with a message: copy it as Markdown; edit and resend one of the user's;
 * regenerate an answer. Editing and regenerating wait while the chat runs (they change its
 * history).
 */
export function MessageActions({
  message,
  idle,
  regenerable = true,
  version,
  queued = false,
  onEdit,
}: {
  message: MessageView
  idle: boolean
  /** False where the answer's Regenerate is offered elsewhere (a stopped run's notice). */
  regenerable?: boolean
  version?: Version
  /** A message sent while the chat ran, that its run has not taken yet. */
  queued?: boolean
  onEdit: () => void
}) {
  const store = useStore()
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    if (!copied) return
    const t = setTimeout(() => setCopied(false), 1500)
    return () => clearTimeout(t)
  }, [copied])
  const user = message.role === 'user'
  if (queued) {
    return (
      <div className="message-actions user queued" data-testid="queued">
        <span className="queued-label muted">Queued: the model reads it at its next step</span>
        <button type="button" className="link" aria-label="Edit the queued message" title="Edit" onClick={onEdit}>
          <Icon name="pencil" />
        </button>
        <button
          type="button"
          className="link"
          aria-label="Take back the queued message"
          title="Take back"
          onClick={() => void store.editQueued(message.id, '')}
        >
          ✕
        </button>
      </div>
    )
  }
  if (!user && (!message.complete || !message.content)) return null
  return (
    <div className={`message-actions${user ? ' user' : ''}`} data-testid="message-actions">
      {version && <VersionNav messageId={message.id} version={version} />}
      <button
        type="button"
        className="link"
        aria-label={copied ? 'Copied' : 'Copy as Markdown'}
        title="Copy as Markdown"
        onClick={() => void copyText(messageMarkdown(message)).then(() => setCopied(true))}
      >
        <Icon name="copy" /> {copied && <span className="small">Copied</span>}
      </button>
      {user && idle && (
        <button type="button" className="link" aria-label="Edit and resend" title="Edit and resend" onClick={onEdit}>
          <Icon name="pencil" />
        </button>
      )}
      {!user && idle && regenerable && (
        <button
          type="button"
          className="link"
          aria-label="Regenerate"
          title="Regenerate: ask again, keeping this answer as an earlier version"
          onClick={() => void store.regenerate(message.id)}
        >
          <Icon name="regenerate" />
        </button>
      )}
    </div>
  )
}

/** A user message being edited: Enter (or Send) resends it, Esc (or Cancel) keeps it. */
export function EditBox({
  message,
  onDone,
  onSend,
}: {
  message: MessageView
  onDone: () => void
  /** What sending does; by default the message is resent and the chat goes on from it. */
  onSend?: (text: string) => void
}) {
  const store = useStore()
  const [text, setText] = useState(message.content)
  const box = useRef<HTMLTextAreaElement>(null)
  useEffect(() => {
    const el = box.current
    if (el) {
      el.focus()
      el.setSelectionRange(el.value.length, el.value.length)
    }
  }, [])
  const done = () => {
    onDone()
    focusComposer()
  }
  const send = () => {
    if (!text.trim()) return
    done()
    if (onSend) onSend(text)
    else void store.editAndResend(message.id, text)
  }
  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      send()
    } else if (e.key === 'Escape') {
      e.preventDefault()
      e.stopPropagation()
      done()
    }
  }
  return (
    <div className="message user editing" data-testid="edit-box">
      <textarea
        ref={box}
        aria-label="Edit the message"
        value={text}
        rows={Math.min(12, Math.max(2, text.split('\n').length))}
        onChange={(e) => setText(e.target.value)}
        onKeyDown={onKeyDown}
      />
      <div className="row end">
        <button type="button" onClick={done}>
          Cancel
        </button>
        <button type="button" className="primary" disabled={!text.trim()} onClick={send}>
          Send
        </button>
      </div>
      {!onSend && <div className="muted small">What followed this message stays as an earlier version.</div>}
    </div>
  )
}
