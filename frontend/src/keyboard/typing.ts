// Where the focus is, so that the window never moves it away from what the user works in: a
// text field, an open dialog, or any control they put it on.

export function isTextField(el: Element | null): el is HTMLInputElement | HTMLTextAreaElement | HTMLElement {
  if (!el) return false
  if (el instanceof HTMLTextAreaElement) return true
  if (el instanceof HTMLInputElement) {
    return !['button', 'checkbox', 'radio', 'submit', 'reset', 'range', 'color', 'file', 'image'].includes(el.type)
  }
  return el instanceof HTMLElement && el.isContentEditable
}

/**
 * True when the focus is nowhere the user works: on the page itself (the control that had it went
 * away), or on the spent button of a call already decided. Only then may a call that starts
 * waiting take it: focus taken from a text field or a live control would turn the user's next key
 * (Space, Enter) into a decision they never made.
 */
export function focusIsIdle(): boolean {
  const el = document.activeElement
  if (!el || el === document.body || el === document.documentElement) return true
  return el.closest('.approval-actions') !== null && el.getAttribute('aria-disabled') === 'true'
}

/** True while a modal dialog (the settings) is open: the chat behind it takes no keys or focus. */
export function modalDialogOpen(): boolean {
  return document.querySelector('[aria-modal="true"]') !== null
}
