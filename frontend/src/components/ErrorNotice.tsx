import { openMenu } from '../keyboard/menus'
import { errorSentence } from '../state/errorSentences'
import { useAppState, useStore } from '../state/useAppState'

/** An error of a run, in the user's words, with what can be done: Retry, Settings, models. */
export function ErrorNotice({ code, message }: { code: string; message: string }) {
  const store = useStore()
  const idle = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId]?.phase : 'idle') === 'idle')
  const provider = useAppState((s) => s.config?.provider)
  const { text, actions } = errorSentence(code, message, provider)
  return (
    <div className="notice error" role="alert" data-testid="notice" data-code={code} title={message}>
      <span>⚠ {text}</span>
      <span className="notice-actions">
        {actions.map((a) =>
          a === 'retry' ? (
            <button key={a} type="button" disabled={!idle} onClick={() => void store.retry()}>
              Retry
            </button>
          ) : a === 'settings' ? (
            <button key={a} type="button" onClick={() => openMenu('settings')}>
              Settings
            </button>
          ) : (
            <button key={a} type="button" onClick={() => openMenu('model')}>
              Models
            </button>
          ),
        )}
      </span>
    </div>
  )
}
