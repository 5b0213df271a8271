import { useCallback, useEffect, useState } from 'react'
import { ChatList, waitingPhases } from './components/ChatList'
import { ChangesPanel } from './components/ChangesPanel'
import { ChangesBar, ChatView } from './components/ChatView'
import { Composer } from './components/Composer'
import { ChatChangeDialog } from './components/ChatChangeDialog'
import { Header } from './components/Header'
import { ContextGauge } from './components/ContextGauge'
import { FirstModelPanel } from './components/FirstModelPanel'
import { ModelServerDownPanel } from './components/ModelServerDownPanel'
import { HelpOverlay } from './components/HelpOverlay'
import { SearchDialog } from './components/SearchDialog'
import { OllamaDownPanel } from './components/OllamaDownPanel'
import { SettingsPanel } from './components/SettingsPanel'
import { WorkspaceServersDialog } from './components/WorkspaceServersDialog'
import { PreviewHost } from './components/PreviewPane'
import { summarizeArgs } from './components/ToolCard'
import { commandOf, shortCommand } from './components/CommandCard'
import { approveShortcut, denyShortcut, leaveOutShortcut, summarizeShortcut } from './keyboard/shortcuts'
import { useApprovalShortcuts } from './keyboard/useApprovalShortcuts'
import { focusComposer, useMenuRequest } from './keyboard/menus'
import { useWindowShortcuts } from './keyboard/useWindowShortcuts'
import { useTheme } from './theme'
import { useSidebarShown } from './sidebar'
import { isStoppable, oldestWaitingCard, waitingOffer } from './state/chatReducer'
import { budgetKey, findModel, headerModel, headerWorkspace, needsFirstModel, type AppState } from './state/store'
import { useAppState, useStore } from './state/useAppState'

/** The line above the composer while the model server in effect does not answer: which one. */
export function serverDownLine(provider: string, url: string): string {
  const at = url ? ` at ${url}` : ''
  if (provider === 'openai') return `The OpenAI-compatible server${at} does not answer.`
  return `Ollama is not running${at}.`
}

/** Why the composer cannot send yet, or '' when it can. */
export function composerBlocker(s: AppState): string {
  if (s.configError) return `The settings could not be read: ${s.configError}`
  if (!s.config) return 'Loading…'
  if (s.ollama && !s.ollama.running) return serverDownLine(s.config.provider, s.ollama.url || s.config.ollamaUrl)
  if (!headerWorkspace(s)) return 'Pick a workspace folder (top left, Ctrl+O) to start.'
  if (!headerModel(s) && needsFirstModel(s)) return 'Pull a first model (above) to start.'
  if (!headerModel(s)) return 'Pick a model (top, Ctrl+M) to start.'
  return ''
}

/** A note about the chosen model that does not block sending. */
export function modelWarning(s: AppState): string {
  const name = headerModel(s)
  if (!name || s.models.length === 0) return ''
  const m = findModel(s.models, name)
  if (!m) return `${name} is not on the Ollama server: pull it from the model menu.`
  if (!m.tools) return `${name} cannot call tools, and Prototyper works through them: pick a model with the “tools” badge.`
  return ''
}

/**
 * Whether the model the message goes to reads images; undefined when the server did not say.
 * Ollama's list leaves vision out when it is false: a model Ollama described (its context
 * length is known) and that has no vision cannot see. An OpenAI-compatible server never says
 * whether a model sees (its context length says nothing about it): there the images go, and
 * the server's answer decides.
 */
export function modelVision(s: AppState): boolean | undefined {
  const name = headerModel(s)
  const m = name ? findModel(s.models, name) : undefined
  if (!m) return undefined
  if (m.vision !== undefined || s.config?.provider === 'openai') return m.vision
  return m.contextLength > 0 ? false : undefined
}

function ConnectedComposer() {
  const store = useStore()
  const blocker = useAppState(composerBlocker)
  const warning = useAppState(modelWarning)
  const busy = useAppState((s) => isStoppable(s.activeChatId ? s.chats[s.activeChatId] : undefined))
  const budget = useAppState((s) => s.budgets[budgetKey(s)])
  // what is given back is for one chat's box: the box takes it only while it shows that chat
  const restored = useAppState((s) => (s.restoredFor === (s.activeChatId ?? '') ? s.restoredDraft : ''))
  const restoredImages = useAppState((s) => (s.restoredFor === (s.activeChatId ?? '') ? s.restoredImages.length : 0))
  const model = useAppState((s) => s.config?.model ?? '')
  const vision = useAppState((s) => modelVision(s))
  const chatId = useAppState((s) => s.activeChatId ?? '')
  return (
    <Composer
      draftKey={chatId}
      savedDraft={store.draftOf}
      onDraft={store.draftChanged}
      savedImages={store.draftImagesOf}
      onDraftImages={store.draftImagesChanged}
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
      onEditLast={store.editLast}
      restored={restored}
      onRestored={store.takeRestoredDraft}
      onRestoredImages={store.takeRestoredImages}
      restoredImages={restoredImages}
    />
  )
}

function ErrorLine() {
  const store = useStore()
  const error = useAppState((s) => s.error)
  if (!error) return null
  return (
    <div className="error-line" role="alert" data-testid="error-line">
      {/* a paragraph, so that a screen reader can read the sentence itself, not only the alert */}
      <p>{error}</p>
      <button
        type="button"
        className="link"
        aria-label="Dismiss"
        title="Dismiss"
        onClick={() => {
          store.dismissError()
          focusComposer() // the button goes with the line: the keys go back to the box
        }}
      >
        ✕
      </button>
    </div>
  )
}

/** Redo, the review and the undo's outcome of the open chat. */
function ActiveChangesBar() {
  const chat = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId] : undefined))
  return chat ? <ChangesBar chat={chat} /> : null
}

/** What the window would say aloud now: loading, a call waiting for the user, or ready. */
export function windowStatus(s: AppState): string {
  if (!s.ready) return 'Loading…'
  const chat = s.activeChatId ? s.chats[s.activeChatId] : undefined
  const card = oldestWaitingCard(chat, s.decisions)
  if (card) {
    const what =
      card.name === 'run_command'
        ? `The command ${shortCommand(commandOf(card).command)}`
        : [card.name || 'A tool call', summarizeArgs(card)].filter(Boolean).join(' ')
    return `${what} waits for your approval: ${approveShortcut.label} approves, ${denyShortcut.label} denies.`
  }
  const offer = waitingOffer(chat)
  if (offer) return `${offer.text} ${summarizeShortcut.label} summarizes, ${leaveOutShortcut.label} leaves them out.`
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
 * The window's title: the app's name, and how many chats wait for the user, given their phases:
 * for approval (of a tool call), for an answer (to a summary offer), or for either.
 */
export function windowTitle(waiting: string[]): string {
  const n = waiting.length
  if (n === 0) return 'Prototyper'
  const offers = waiting.filter((p) => p === 'awaiting_summary').length
  const what = offers === 0 ? 'for approval' : offers === n ? 'for your answer' : 'for you'
  return `Prototyper — ${n} ${n === 1 ? 'chat waits' : 'chats wait'} ${what}`
}

function useWindowTitle() {
  const store = useStore()
  const waiting = useAppState((s) => waitingPhases(s).join(' '))
  useEffect(() => store.setTitle(windowTitle(waiting ? waiting.split(' ') : [])), [store, waiting])
}

/**
 * The window: header on top, chat list on the left, the chat and the composer on the right (in
 * that order for the keyboard too). The root says data-ready="true" once the settings, the chats
 * and the chat shown at start are loaded.
 */
export function App() {
  const store = useStore()
  const [settingsOpen, setSettingsOpen] = useState(false)
  const [searchOpen, setSearchOpen] = useState(false)
  const [helpOpen, setHelpOpen] = useState(false)
  const config = useAppState((s) => s.config)
  const ready = useAppState((s) => s.ready)
  const ollamaDown = useAppState((s) => s.ollama !== null && !s.ollama.running)
  const firstModel = useAppState((s) => needsFirstModel(s) && s.activeChatId === null)
  const openSettings = useCallback(() => setSettingsOpen(true), [])
  // the keys go back to the message box, as after any dialog, never to nowhere
  const closeSettings = useCallback(() => {
    setSettingsOpen(false)
    focusComposer()
  }, [])
  const openSearch = useCallback(() => setSearchOpen(true), [])
  const openHelp = useCallback(() => setHelpOpen(true), [])
  useApprovalShortcuts(store)
  useWindowShortcuts(store, { openSettings, openSearch, openHelp })
  useMenuRequest('settings', openSettings)
  useWindowTitle()
  useTheme(config?.theme)
  const sidebar = useSidebarShown(config?.sidebar)
  return (
    <div className="app" data-ready={ready ? 'true' : 'false'} data-sidebar={sidebar ? 'shown' : 'hidden'} data-testid="app">
      <Header onSettings={openSettings} />
      {sidebar && <ChatList onSearch={openSearch} onHelp={openHelp} />}
      <main className="chat">
        <ErrorLine />
        {ollamaDown && config?.provider === 'openai' ? (
          <ModelServerDownPanel />
        ) : ollamaDown ? (
          <OllamaDownPanel onSettings={openSettings} />
        ) : firstModel ? (
          <FirstModelPanel />
        ) : (
          <ChatView />
        )}
        <ContextGauge />
        <ActiveChangesBar />
        <ChangesPanel />
        <ConnectedComposer />
      </main>
      <PreviewHost />
      <WindowStatus />
      {settingsOpen && config && <SettingsPanel config={config} onClose={closeSettings} />}
      {searchOpen && <SearchDialog onClose={() => setSearchOpen(false)} />}
      {helpOpen && <HelpOverlay onClose={() => setHelpOpen(false)} />}
      <ChatChangeDialog />
      <WorkspaceServersDialog />
    </div>
  )
}
