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
  /** What it does, as the help overlay says it. */
  does: string
}

export const approveShortcut: Shortcut = { label: 'Alt+A', letter: 'a', does: 'Approve the tool call that waits' }
export const denyShortcut: Shortcut = { label: 'Alt+D', letter: 'd', does: 'Deny the tool call that waits' }
/** Deny and tell the model why: opens the reason field of the waiting card. */
export const denyWithReasonShortcut: Shortcut = { label: 'Alt+R', letter: 'r', does: 'Deny the waiting call and tell the model why' }
/** Always allow this tool in this workspace. */
export const alwaysAllowShortcut: Shortcut = { label: 'Alt+L', letter: 'l', does: 'Always allow the waiting tool in this folder' }
/** On a waiting command: let it use the host's network (or not). */
export const networkShortcut: Shortcut = { label: 'Alt+N', letter: 'n', does: 'Allow the waiting command the network (or not)' }
/** Answer the offer to summarize the older messages that no longer fit the model's context. */
export const summarizeShortcut: Shortcut = { label: 'Alt+S', letter: 's', does: 'Summarize the older messages that no longer fit' }
export const leaveOutShortcut: Shortcut = { label: 'Alt+O', letter: 'o', does: 'Leave out the older messages that no longer fit' }
/** Undo the open chat's newest run that changed files, and redo the last undo. */
export const undoShortcut: Shortcut = { label: 'Alt+Z', letter: 'z', does: 'Undo the newest run that changed files' }
export const redoShortcut: Shortcut = { label: 'Alt+Y', letter: 'y', does: 'Redo what the last undo took back' }
/** Open (or close) the review of every file the open chat changed. */
export const changesShortcut: Shortcut = { label: 'Alt+C', letter: 'c', does: 'Show the files this chat changed, to review or revert' }
/** Open (or close) the Preview pane beside the chat, and give it the whole width (or not). */
export const previewShortcut: Shortcut = { label: 'Alt+P', letter: 'p', does: 'Show or hide the preview of the folder’s web page' }
export const previewWideShortcut: Shortcut = { label: 'Alt+W', letter: 'w', does: 'Give the preview the whole width (or not)' }
/** Attach a picture of the page the preview shows to the message being typed. */
export const previewShotShortcut: Shortcut = { label: 'Alt+I', letter: 'i', does: 'Attach a screenshot of the preview to the message' }

/** Whether a keydown is the shortcut: Alt and the letter, no other modifier, not a held key. */
export function matches(e: Pick<KeyboardEvent, 'altKey' | 'ctrlKey' | 'metaKey' | 'shiftKey' | 'key' | 'code' | 'repeat'>, s: Shortcut): boolean {
  if (!e.altKey || e.ctrlKey || e.metaKey || e.shiftKey || e.repeat) return false
  const key = (e.key ?? '').toLowerCase()
  if (key === s.letter) return true
  // Option+A on a Mac reports "å": fall back to the physical key when the key is no plain letter.
  return !/^[a-z]$/.test(key) && e.code === `Key${s.letter.toUpperCase()}`
}

/**
 * The window's own shortcuts (Ctrl with a key works in every field: it types nothing), named
 * once: the global listener (useWindowShortcuts) matches them, the buttons show them in their
 * tooltips and aria-keyshortcuts, and the help overlay lists them.
 */
export interface WindowShortcut {
  /** As shown in tooltips, aria-keyshortcuts and the help overlay. */
  label: string
  /** KeyboardEvent.key, lower case. */
  key: string
  ctrl: boolean
  /** What it does, as the help overlay says it. */
  does: string
}

export const newChatShortcut: WindowShortcut = { label: 'Ctrl+N', key: 'n', ctrl: true, does: 'New chat' }
export const searchShortcut: WindowShortcut = { label: 'Ctrl+K', key: 'k', ctrl: true, does: 'Search chats' }
export const settingsShortcut: WindowShortcut = { label: 'Ctrl+,', key: ',', ctrl: true, does: 'Settings' }
export const folderShortcut: WindowShortcut = { label: 'Ctrl+O', key: 'o', ctrl: true, does: 'Open a folder' }
export const modelShortcut: WindowShortcut = { label: 'Ctrl+M', key: 'm', ctrl: true, does: 'Pick a model' }
export const helpShortcut: WindowShortcut = { label: 'Ctrl+/', key: '/', ctrl: true, does: 'Keyboard shortcuts (also ? outside a text field)' }
export const quitShortcut: WindowShortcut = { label: 'Ctrl+Q', key: 'q', ctrl: true, does: 'Quit Prototyper (as closing the window does)' }
export const messageShortcut: WindowShortcut = { label: 'Ctrl+L', key: 'l', ctrl: true, does: 'Put the cursor in the message box' }
export const sidebarShortcut: WindowShortcut = { label: 'Ctrl+B', key: 'b', ctrl: true, does: 'Show or hide the list of chats' }

/**
 * Every key of the window, defined once, in the order the help overlay lists them: the
 * shortcuts above and the keys of lists and fields. No two shortcuts share a key
 * (shortcuts.test.ts checks it).
 */
export const helpList: Array<{ label: string; does: string }> = [
  newChatShortcut,
  searchShortcut,
  folderShortcut,
  modelShortcut,
  settingsShortcut,
  messageShortcut,
  sidebarShortcut,
  { label: 'A letter', does: 'Outside a text field: write it in the message box' },
  { label: 'Enter', does: 'Send the message' },
  { label: 'Shift+Enter', does: 'New line in the message' },
  { label: '↑', does: 'In an empty message: edit the last one you sent' },
  { label: 'Esc', does: 'Close the menu or dialog; with none open, stop the run' },
  { label: '↑ ↓ Enter', does: 'Move in a list and choose' },
  approveShortcut,
  denyShortcut,
  denyWithReasonShortcut,
  alwaysAllowShortcut,
  networkShortcut,
  summarizeShortcut,
  leaveOutShortcut,
  undoShortcut,
  redoShortcut,
  changesShortcut,
  previewShortcut,
  previewWideShortcut,
  previewShotShortcut,
  helpShortcut,
  quitShortcut,
]

/** Whether a keydown is a window shortcut: Ctrl (or ⌘) and its key, nothing else held. */
export function matchesWindow(e: Pick<KeyboardEvent, 'altKey' | 'ctrlKey' | 'metaKey' | 'key'>, s: WindowShortcut): boolean {
  if (!(e.ctrlKey || e.metaKey) || e.altKey) return false
  return (e.key ?? '').toLowerCase() === s.key
}

/** A tooltip with the shortcut: "New chat (Ctrl+N)". */
export function withShortcut(text: string, s: { label: string }): string {
  return `${text} (${s.label})`
}
