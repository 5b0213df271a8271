// The window's keyboard shortcuts, named once: the buttons show them, expose them with
// aria-keyshortcuts, and the global listener (useApprovalShortcuts) matches them.
//
// Alt+letter types nothing in a text field on Linux and Windows, so the shortcuts work while the
// composer has the focus without taking a character from what is typed; on macOS, where
// Option+letter types a character, the listener matches the physical key and keeps the character
// out of the field.

export interface Shortcut {
  /** As shown on the button and in aria-keyshortcuts. */
  label: string
  /** The letter typed with Alt. */
  letter: string
}

export const approveShortcut: Shortcut = { label: 'Alt+A', letter: 'a' }
export const denyShortcut: Shortcut = { label: 'Alt+D', letter: 'd' }
export const settingsShortcut: Shortcut = { label: 'Alt+S', letter: 's' }

/** Whether a keydown is the shortcut: Alt and the letter, no other modifier, not a held key. */
export function matches(e: Pick<KeyboardEvent, 'altKey' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'key' | 'code' | 'repeat'>, s: Shortcut): boolean {
  if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.repeat) return false
  const key = (e.key ?? '').toLowerCase()
  if (key === s.letter) return true
  // Option+A on a Mac reports "å": fall back to the physical key when the key is no plain letter.
  return !/^[a-z]$/.test(key) && e.code === `Key${s.letter.toUpperCase()}`
}
