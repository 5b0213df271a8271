import { useState } from 'react'
import { ChatList } from './components/ChatList'
import { ChatView } from './components/ChatView'
import { Composer } from './components/Composer'
import { Header } from './components/Header'
import { OllamaDownPanel } from './components/OllamaDownPanel'
import { SettingsPanel } from './components/SettingsPanel'
import { isBusy } from './state/chatReducer'
import type { AppState } from './state/store'
import { useAppState, useStore } from './state/useAppState'

/** Why the composer cannot send yet, or '' when it can. */
export function composerBlocker(s: AppState): string {
  if (s.configError) return `The settings could not be read: ${s.configError}`
  if (!s.config) return 'Loading…'
  if (s.ollama && !s.ollama.running) return 'Ollama is not running.'
  if (!s.config.workspace) return 'Pick a workspace folder (top left) to start.'
  if (!s.config.model) return 'Pick a model (top) to start.'
  return ''
}

/** A note about the chosen model that does not block sending. */
export function modelWarning(s: AppState): string {
  const name = s.config?.model
  if (!name || s.models.length === 0) return ''
  const m = s.models.find((x) => x.name === name || x.name === `${name}:latest`)
  if (!m) return `${name} is not on the Ollama server: pull it from the model menu.`
  if (!m.tools) return `${name} cannot call tools, so it can answer but cannot write files. Pick a model with the “tools” badge.`
  return ''
}

function ConnectedComposer() {
  const store = useStore()
  const blocker = useAppState(composerBlocker)
  const warning = useAppState(modelWarning)
  const busy = useAppState((s) => isBusy((s.activeChatId ? s.chats[s.activeChatId]?.phase : undefined) ?? 'idle'))
  return (
    <Composer
      disabledReason={blocker}
      busy={busy}
      warning={warning}
      onSend={(text) => store.send(text)}
      onStop={() => void store.stop()}
    />
  )
}

function ErrorLine() {
  const store = useStore()
  const error = useAppState((s) => s.error)
  if (!error) return null
  return (
    <div className="error-line" role="alert" data-testid="error-line">
      <span>{error}</span>
      <button type="button" className="link" aria-label="Dismiss" onClick={store.dismissError}>
        ✕
      </button>
    </div>
  )
}

/** The window: chat list on the left; header, chat and composer on the right. */
export function App() {
  const [settingsOpen, setSettingsOpen] = useState(false)
  const config = useAppState((s) => s.config)
  const ollamaDown = useAppState((s) => s.ollama !== null && !s.ollama.running)
  const openSettings = () => setSettingsOpen(true)
  return (
    <div className="app">
      <ChatList />
      <main className="chat">
        <Header onSettings={openSettings} />
        <ErrorLine />
        {ollamaDown ? <OllamaDownPanel onSettings={openSettings} /> : <ChatView />}
        <ConnectedComposer />
      </main>
      {settingsOpen && config && <SettingsPanel config={config} onClose={() => setSettingsOpen(false)} />}
    </div>
  )
}
