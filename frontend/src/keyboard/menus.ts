// Which header menu a shortcut asks to open. The window's shortcuts live in one listener
// (useWindowShortcuts); the menus live in the header: this is the one line between them.

import { useEffect } from 'react'

export type MenuName = 'folder' | 'model' | 'settings'

const listeners = new Set<(name: MenuName) => void>()

/** Asks the header to open a menu. */
export function openMenu(name: MenuName): void {
  for (const l of listeners) l(name)
}

/** Calls open when a shortcut asks for the menu name. */
export function useMenuRequest(name: MenuName, open: () => void): void {
  useEffect(() => {
    const l = (n: MenuName) => n === name && open()
    listeners.add(l)
    return () => {
      listeners.delete(l)
    }
  }, [name, open])
}

/** Whether a menu of the header is open (Esc then closes it rather than stopping a run). */
export function menuOpen(): boolean {
  return document.querySelector('[data-menu-open="true"]') !== null
}

/**
 * Gives the composer the focus (after a new chat, a closed menu or dialog), once the page
 * settled, unless a dialog opened meanwhile (a question about the choice just made): that
 * dialog keeps it. While the composer cannot be used, [focusIfLost] decides.
 */
export function focusComposer(): void {
  setTimeout(() => {
    if (document.querySelector('[aria-modal="true"]')) return
    const box = usableComposer()
    if (box) box.focus()
    else focusIfLost()
  }, 0)
}

/** The message box, when it can be used (not disabled). */
function usableComposer(): HTMLTextAreaElement | null {
  const box = document.getElementById('composer')
  return box instanceof HTMLTextAreaElement && !box.disabled ? box : null
}

/**
 * Gives the focus a place when it has none (the page's body, or a control disabled meanwhile,
 * which takes no keys), with no dialog open: the composer, or, while that cannot be used, the
 * way on of the panel that says why ([data-unblocks]: its Retry). A focus somewhere stays.
 */
export function focusIfLost(): void {
  if (document.querySelector('[aria-modal="true"]')) return
  const at = document.activeElement
  if (at && at !== document.body && at.isConnected && !at.matches(':disabled')) return
  const box = usableComposer()
  if (box) box.focus()
  else document.querySelector<HTMLElement>('[data-unblocks]')?.focus()
}
