// Whether the user is typing, so that the window does not move the focus away from what they
// type: a text field has the focus and holds text, or a key was typed into a field a moment ago.

/** How long after a key typed into a field the user still counts as typing. */
export const typingPauseMs = 1500

let lastTypedAt = -Infinity

export function isTextField(el: Element | null): el is HTMLInputElement | HTMLTextAreaElement | HTMLElement {
  if (!el) return false
  if (el instanceof HTMLTextAreaElement) return true
  if (el instanceof HTMLInputElement) {
    return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file', 'image'].includes(el.type)
  }
  return el instanceof HTMLElement && el.isContentEditable
}

function onKeyDown(e: KeyboardEvent): void {
  if (e.altKey || e.ctrlKey || e.metaKey) return // a shortcut, not typing
  if (['Shift', 'Alt', 'Control', 'Meta', 'Tab', 'Escape', 'CapsLock'].includes(e.key)) return
  if (!isTextField(e.target as Element | null)) return
  // Enter sends: the message is gone and the user now waits for the answer, not typing.
  if (e.key === 'Enter' && !e.shiftKey) {
    lastTypedAt = -Infinity
    return
  }
  lastTypedAt = performance.now()
}

/** Listens for keys typed into fields of the document; returns the function that stops it. */
export function watchTyping(doc: Document = document): () => void {
  doc.addEventListener('keydown', onKeyDown, true)
  return () => doc.removeEventListener('keydown', onKeyDown, true)
}

/** True while the user types: focus in a non-empty text field, or a key typed just now. */
export function userIsTyping(now = performance.now()): boolean {
  if (now - lastTypedAt < typingPauseMs) return true
  const el = document.activeElement
  if (!isTextField(el)) return false
  const text = el instanceof HTMLInputElement || el instanceof HTMLTextAreaElement ? el.value : el.textContent
  return (text ?? '').trim() !== ''
}

/** True while a modal dialog (the settings) is open: the chat behind it takes no keys or focus. */
export function modalDialogOpen(): boolean {
  return document.querySelector('[aria-modal="true"]') !== null
}

/** Forgets the last key typed (tests). */
export function resetTyping(): void {
  lastTypedAt = -Infinity
}
