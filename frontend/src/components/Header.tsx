import { settingsShortcut } from '../keyboard/shortcuts'
import { runStateText } from '../state/runState'
import { useAppState } from '../state/useAppState'
import { FolderMenu } from './FolderMenu'
import { Icon } from './icons'
import { ModelPicker } from './ModelPicker'
import { OllamaStartedBadge } from './OllamaStartedBadge'
import { ShortcutButton } from './ShortcutButton'
import { SidebarToggle } from './SidebarToggle'

/** The bar above the chat: the open chat's folder and model, its run state, settings. */
export function Header({ onSettings }: { onSettings: () => void }) {
  const phase = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId]?.phase : undefined) ?? 'idle')
  const busy = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId]?.busy : undefined) ?? false)
  const label = useAppState((s) => {
    const chat = s.activeChatId ? s.chats[s.activeChatId] : undefined
    return chat ? runStateText(chat) : ''
  })
  return (
    <header className="chat-header">
      <SidebarToggle />
      <FolderMenu />
      <ModelPicker />
      <OllamaStartedBadge />
      <span className="spacer" />
      {/* One status, always there: a screen reader announces a change of its text, not an
          element that comes and goes (the first state, the end of the run, were missed). */}
      <span className={`run-state${busy ? ' busy' : ''}`} role="status" data-testid="run-state" data-phase={phase}>
        {phase !== 'idle' && (
          <>
            {busy && <span className="spinner" aria-hidden="true" />} {label}
          </>
        )}
      </span>
      <ShortcutButton shortcut={settingsShortcut} what="Settings" className="header-button" aria-label="Settings" onClick={onSettings}>
        <Icon name="settings" />
      </ShortcutButton>
    </header>
  )
}
