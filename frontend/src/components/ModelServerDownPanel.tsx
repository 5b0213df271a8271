import { settingsShortcut } from '../keyboard/shortcuts'
import { useAppState, useStore } from '../state/useAppState'

/**
 * Shown instead of the chat while the OpenAI-compatible server of the settings does not answer
 * (OllamaDownPanel is Ollama's): where it was asked, what it said, a retry.
 */
export function ModelServerDownPanel() {
  const store = useStore()
  const status = useAppState((s) => s.ollama)
  const checking = useAppState((s) => s.checkingOllama)
  return (
    <section className="ollama-down" role="alert" data-testid="model-server-down">
      <h2>The model server does not answer</h2>
      <p>
        Prototyper talks to the OpenAI-compatible server{status?.url ? ` at ${status.url}` : ''}. Start it, or check its
        URL and API key variable in the settings ({settingsShortcut.label}, or the gear above), then retry.
      </p>
      {status?.error && <p className="muted small">Details: {status.error}</p>}
      {/* aria-disabled while checking, not disabled: a disabled button drops the focus, and the keys */}
      <button type="button" className="primary" data-unblocks aria-disabled={checking} onClick={() => void (checking || store.refreshOllama())}>
        {checking ? 'Checking…' : 'Retry'}
      </button>
    </section>
  )
}
