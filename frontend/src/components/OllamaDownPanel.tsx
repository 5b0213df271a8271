import { asSentence } from '../state/sentence'
import { useAppState, useStore } from '../state/useAppState'

/**
 * Shown instead of the chat while Ollama does not answer: why (Prototyper could not start it,
 * or it is not running), how to start it, and a retry.
 */
export function OllamaDownPanel({ onSettings }: { onSettings: () => void }) {
  const store = useStore()
  const status = useAppState((s) => s.ollama)
  const checking = useAppState((s) => s.checkingOllama)
  return (
    <section className="ollama-down" role="alert" data-testid="ollama-down">
      {status?.startError ? (
        <>
          <h2>Prototyper could not start Ollama</h2>
          <p data-testid="ollama-start-error">{asSentence(status.startError)}</p>
          <p>
            Fix what it says and retry, or start Ollama yourself with <code>ollama serve</code>.
          </p>
        </>
      ) : (
        <>
          <h2>Ollama is not running</h2>
          <p>
            Prototyper talks to a local Ollama server{status?.url ? ` at ${status.url}` : ''}. Start it in a terminal with
          </p>
          <pre>ollama serve</pre>
          <p>Or open the Ollama app, then press Retry. If it runs on another computer, change its address in the settings.</p>
          {status?.error && <p className="muted small">Details: {status.error}</p>}
        </>
      )}
      <div className="row">
        {/* The composer cannot be used meanwhile: Enter retries (aria-disabled while checking, not
            disabled: a disabled button drops the focus, and the keys). */}
        <button type="button" className="primary" data-unblocks autoFocus aria-disabled={checking} onClick={() => void (checking || store.refreshOllama())}>
          {checking ? 'Checking…' : 'Retry'}
        </button>
        <button type="button" onClick={onSettings}>
          Settings
        </button>
      </div>
    </section>
  )
}
