import { useEffect } from 'react'
import { isStoppable } from '../state/chatReducer'
import type { AppStore } from '../state/store'
import { typeInComposer } from './composerText'
import { focusComposer, menuOpen, openMenu } from './menus'
import {
  folderShortcut,
  helpShortcut,
  matchesWindow,
  messageShortcut,
  modelShortcut,
  newChatShortcut,
  quitShortcut,
  searchShortcut,
  settingsShortcut,
  sidebarShortcut,
} from './shortcuts'
import { toggledSidebar } from '../sidebar'
import { isTextField, modalDialogOpen } from './typing'

export interface WindowActions {
  openSettings: () => void
  openSearch: () => void
  openHelp: () => void
}

/**
 * The window's keyboard, from anywhere in it: Ctrl+N a new chat with the focus in the composer,
 * Ctrl+K search, Ctrl+, settings, Ctrl+O the folder menu, Ctrl+M the model menu, ? (outside a
 * text field) or Ctrl+/ this list, Ctrl+Q quits, Ctrl+B shows or hides the list of chats,
 * Ctrl+L the message box (and a letter typed
 * outside a text field is written there). Esc closes the menu or dialog that is open (each closes
 * itself and keeps the key); only with none open does it stop the open chat's run.
 */
/**
 * A letter, digit or sign typed with the focus on no text field (a button, a card, the page)
 * and no menu open goes into the message box rather than nowhere. Space and Enter stay the
 * focused control's.
 */
function writesInTheMessageBox(e: KeyboardEvent): boolean {
  if (e.key.length !== 1 || e.key === ' ' || e.ctrlKey || e.metaKey || e.altKey || menuOpen()) return false
  const at = e.target as Element | null
  if (isTextField(at) || (at instanceof Element && at.closest('select, [role="combobox"], [role="listbox"], [role="menu"]'))) return false
  const box = document.getElementById('composer')
  return box instanceof HTMLTextAreaElement && !box.disabled && at !== box
}

export function useWindowShortcuts(store: AppStore, actions: WindowActions): void {
  const { openSettings, openSearch, openHelp } = actions
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.repeat) return
      if (e.key === 'Escape') {
        if (modalDialogOpen() || menuOpen()) return
        const s = store.getState()
        if (isStoppable(s.activeChatId ? s.chats[s.activeChatId] : undefined)) {
          e.preventDefault()
          void store.stop()
        }
        return
      }
      if (modalDialogOpen()) return
      const plainQuestion = e.key === '?' && !e.ctrlKey && !e.metaKey && !e.altKey && !isTextField(e.target as Element | null)
      const run = (f: () => void) => {
        e.preventDefault()
        f()
      }
      if (matchesWindow(e, newChatShortcut)) {
        run(() => {
          store.newChat()
          focusComposer()
        })
      } else if (matchesWindow(e, searchShortcut)) run(openSearch)
      else if (matchesWindow(e, settingsShortcut)) run(openSettings)
      else if (matchesWindow(e, folderShortcut)) run(() => openMenu('folder'))
      else if (matchesWindow(e, modelShortcut)) run(() => openMenu('model'))
      else if (matchesWindow(e, helpShortcut) || plainQuestion) run(openHelp)
      else if (matchesWindow(e, quitShortcut)) run(store.quit)
      else if (matchesWindow(e, messageShortcut)) run(focusComposer)
      else if (matchesWindow(e, sidebarShortcut)) run(() => void store.setSidebar(toggledSidebar(store.getState().config?.sidebar)))
      else if (writesInTheMessageBox(e)) run(() => typeInComposer(e.key))
    }
    // The focus is never lost: when the element that had it leaves the page (a spent button, a
    // closed menu), the composer takes it.
    const onFocusOut = (e: FocusEvent) => {
      const from = e.target
      setTimeout(() => {
        if (from instanceof Element && !from.isConnected && (!document.activeElement || document.activeElement === document.body)) {
          focusComposer()
        }
      }, 0)
    }
    window.addEventListener('keydown', onKeyDown)
    document.addEventListener('focusout', onFocusOut)
    return () => {
      window.removeEventListener('keydown', onKeyDown)
      document.removeEventListener('focusout', onFocusOut)
    }
  }, [store, openSettings, openSearch, openHelp])
}
