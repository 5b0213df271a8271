import { settingsShortcut } from '../keyboard/shortcuts'
import { useAppState } from '../state/useAppState'
import { FolderMenu } from './FolderMenu'
import { Icon } from './icons'
import { ModelPicker } from './ModelPicker'
import { OllamaStartedBadge } from './OllamaStartedBadge'
import { ShortcutButton } from './ShortcutButton'

const phaseLabels: Record<string, string> = {
  submitted: 'Sending…',
  streaming: 'Answering…',
  tools: 'Running tools…',
  continuing: 'Reading the results…',
  awaiting_approval: 'Waiting for your approval',
  awaiting_summary: 'Waiting for your answer: summarize older messages?',
}

/** The bar above the chat: the open chat's folder and model, its run state, settings. */
export function Header({ onSettings }: { onSettings: () => void }) {
  const phase = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId]?.phase : undefined) ?? 'idle')
  const busy = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId]?.busy : undefined) ?? false)
  const loading = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId]?.loadingModel?.model : undefined))
  return (
    <header className="chat-header">
      <FolderMenu />
      <ModelPicker />
      <OllamaStartedBadge />
      <span className="spacer" />
      {phase !== 'idle' && (
        <span className={`run-state${busy ? ' busy' : ''}`} data-testid="run-state" data-phase={phase}>
          {busy && <span className="spinner" aria-hidden="true" />}{' '}
          {phase === 'submitted' && loading ? `Loading ${loading}…` : phaseLabels[phase]}
        </span>
      )}
      <ShortcutButton shortcut={settingsShortcut} what="Settings" className="header-button" aria-label="Settings" onClick={onSettings}>
        <Icon name="settings" />
      </ShortcutButton>
    </header>
  )
}
