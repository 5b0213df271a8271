import { focusComposer } from '../keyboard/menus'
import { useAppState, useStore } from '../state/useAppState'
import { Dialog } from './Dialog'
import { baseName } from './format'

/** Asks what a folder or model picked while a chat is open is for: this chat, or a new one. */
export function ChatChangeDialog() {
  const store = useStore()
  const change = useAppState((s) => s.pendingChange)
  const chat = useAppState((s) => s.chatList.find((c) => c.id === s.pendingChange?.chatId))
  // a chat that runs or waits for the user changes nothing until it is idle: said before, not after
  const busy = useAppState((s) => (s.pendingChange ? (s.chats[s.pendingChange.chatId]?.phase ?? 'idle') !== 'idle' : false))
  if (!change) return null
  const isFolder = change.kind === 'workspace'
  const now = isFolder ? baseName(chat?.workspace ?? '') : (chat?.model ?? '')
  const next = isFolder ? baseName(change.value) : change.value
  const done = () => focusComposer()
  return (
    <Dialog
      label={isFolder ? 'Change the folder?' : 'Change the model?'}
      testId="change-dialog"
      onClose={() => {
        store.cancelChange()
        done()
      }}
    >
      <h2>{isFolder ? `Work in ${next}?` : `Use ${next}?`}</h2>
      <p>
        “{chat?.title || 'This chat'}” {isFolder ? 'works in' : 'uses'} <strong>{now || 'nothing yet'}</strong>. Change
        this chat to <strong>{next}</strong> from its next message on, or start a new chat with it?
      </p>
      {change.kind === 'workspace' && <div className="muted small">{change.value}</div>}
      {busy && (
        <p className="small" data-testid="change-busy">
          This chat is running or waiting for your answer: stop it or answer first to change it, or start a new chat.
        </p>
      )}
      <div className="row end">
        <button type="button" onClick={() => (store.cancelChange(), done())}>
          Cancel
        </button>
        <button
          type="button"
          autoFocus={busy}
          className={busy ? 'primary' : undefined}
          data-testid="change-new-chat"
          onClick={() => void store.applyChange('new').then(done)}
        >
          Start a new chat
        </button>
        <button
          type="button"
          autoFocus={!busy}
          disabled={busy}
          className={busy ? undefined : 'primary'}
          data-testid="change-this-chat"
          onClick={() => void store.applyChange('chat').then(done)}
        >
          Change this chat
        </button>
      </div>
    </Dialog>
  )
}
