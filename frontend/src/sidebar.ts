// Whether the window shows its list of chats (the sidebar): as the user last chose with its
// button or Ctrl+B (saved in the settings, like the theme), or, before any choice, only when
// the window is wide enough for the list and a chat of comfortable width side by side.

import { useSyncExternalStore } from 'react'
import type { SidebarChoice } from './backend'

/** Below this width the list of chats starts hidden: in 900 px it would take 27 % of the window. */
const wideQuery = '(min-width: 1100px)'

/** Whether the window is wide enough now for the list of chats beside the chat. */
export function wideWindow(): boolean {
  return typeof window.matchMedia === 'function' ? window.matchMedia(wideQuery).matches : true
}

/** Whether the list of chats is shown, for the saved choice and the window's width. */
export function sidebarShown(choice: SidebarChoice | undefined, wide: boolean): boolean {
  if (choice === 'shown' || choice === 'hidden') return choice === 'shown'
  return wide
}

/** The choice that toggles the list from how it is shown now. */
export function toggledSidebar(choice: SidebarChoice | undefined): SidebarChoice {
  return sidebarShown(choice, wideWindow()) ? 'hidden' : 'shown'
}

function subscribeWidth(onChange: () => void): () => void {
  if (typeof window.matchMedia !== 'function') return () => {}
  const media = window.matchMedia(wideQuery)
  media.addEventListener?.('change', onChange)
  return () => media.removeEventListener?.('change', onChange)
}

/** Whether the list of chats is shown, following the window's width while no choice is saved. */
export function useSidebarShown(choice: SidebarChoice | undefined): boolean {
  const wide = useSyncExternalStore(subscribeWidth, wideWindow, () => true)
  return sidebarShown(choice, wide)
}
