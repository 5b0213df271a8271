import { sidebarShortcut } from '../keyboard/shortcuts'
import { toggledSidebar, useSidebarShown } from '../sidebar'
import { useAppState, useStore } from '../state/useAppState'
import { ShortcutButton } from './ShortcutButton'

/** The header's button that shows or hides the list of chats (Ctrl+B presses it too). */
export function SidebarToggle() {
  const store = useStore()
  const choice = useAppState((s) => s.config?.sidebar)
  const shown = useSidebarShown(choice)
  return (
    <ShortcutButton
      shortcut={sidebarShortcut}
      what={shown ? 'Hide the list of chats' : 'Show the list of chats'}
      className="header-button sidebar-toggle"
      aria-label="List of chats"
      aria-expanded={shown}
      onClick={() => void store.setSidebar(toggledSidebar(choice))}
    >
      <span aria-hidden="true">☰</span>
    </ShortcutButton>
  )
}
