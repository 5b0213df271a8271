import { useState } from 'react'
import { ChatList } from './components/ChatList'
import { ChatView } from './components/ChatView'
import { Composer } from './components/Composer'
import { ContextGauge } from './components/ContextGauge'
import { Header } from './components/Header'
import { OllamaDownPanel } from './components/OllamaDownPanel'
import { SettingsPanel } from './components/SettingsPanel'
import { summarizeArgs } from './components/ToolCard'
import { approveShortcut, denyShortcut } from './keyboard/shortcuts'
import { useApprovalShortcuts } from './keyboard/useApprovalShortcuts'
import { isBusy, oldestWaitingCard } from './state/chatReducer'
import { budgetKey, type AppState } from './state/store'
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

/** Whether the chosen model reads images; undefined when the server did not say. */
export function modelVision(s: AppState): boolean | undefined {
  const name = s.config?.model
  const m = s.models.find((x) => x.name === name || x.name === `${name}:latest`)
  return m?.vision
}

function ConnectedComposer() {
  const store = useStore()
  const blocker = useAppState(composerBlocker)
  const warning = useAppState(modelWarning)
  const busy = useAppState((s) => isBusy((s.activeChatId ? s.chats[s.activeChatId]?.phase : undefined) ?? 'idle'))
  const budget = useAppState((s) => s.budgets[budgetKey(s)])
  const model = useAppState((s) => s.config?.model ?? '')
  const vision = useAppState((s) => modelVision(s))
  return (
    <Composer
      disabledReason={blocker}
      busy={busy}
      warning={warning}
      budget={budget}
      model={model}
      vision={vision}
      suggestFiles={(q) => store.workspaceFiles(q)}
      pickImages={() => store.pickImages()}
      onSend={(text, images) => store.send(text, images ?? [])}
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
      <button type="button" className="link" aria-label="Dismiss" title="Dismiss" onClick={store.dismissError}>
        ✕
      </button>
    </div>
  )
}

/** What the window would say aloud now: loading, a call waiting for the user, or ready. */
export function windowStatus(s: AppState): string {
  if (!s.ready) return 'Loading…'
  const card = oldestWaitingCard(s.activeChatId ? s.chats[s.activeChatId] : undefined, s.decisions)
  if (card) {
    const what = [card.name || 'A tool call', summarizeArgs(card)].filter(Boolean).join(' ')
    return `${what} waits for your approval: ${approveShortcut.label} approves, ${denyShortcut.label} denies.`
  }
  return 'Ready.'
}

/**
 * A polite live region, visually hidden: screen readers hear it, and tests (through the DOM or
 * the accessibility tree) read it to know the window is ready or waits for a decision.
 */
function WindowStatus() {
  const text = useAppState(windowStatus)
  return (
    <div className="visually-hidden" role="status" aria-live="polite" data-testid="window-status">
      {text}
    </div>
  )
}

/**
 * The window: header on top, chat list on the left, the chat and the composer on the right (in
 * that order for the keyboard too). The root says data-ready="true" once the settings, the chats
 * and the chat shown at start are loaded.
 */
export function App() {
  const store = useStore()
  const [settingsOpen, setSettingsOpen] = useState(false)
  const config = useAppState((s) => s.config)
  const ready = useAppState((s) => s.ready)
  const ollamaDown = useAppState((s) => s.ollama !== null && !s.ollama.running)
  const openSettings = () => setSettingsOpen(true)
  useApprovalShortcuts(store)
  return (
    <div className="app" data-ready={ready ? 'true' : 'false'} data-testid="app">
      <Header onSettings={openSettings} />
      <ChatList />
      <main className="chat">
        <ErrorLine />
        {ollamaDown ? <OllamaDownPanel onSettings={openSettings} /> : <ChatView />}
        <ContextGauge />
        <ConnectedComposer />
      </main>
      <WindowStatus />
      {settingsOpen && config && <SettingsPanel config={config} onClose={() => setSettingsOpen(false)} />}
    </div>
  )
}
