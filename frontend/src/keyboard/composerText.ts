// Writing in the message box from elsewhere in the window (a letter typed on a button, an
// example prompt picked), as typing there would: through the field's own input event, so that
// the draft follows and Ctrl+Z takes it back.

function composer(): HTMLTextAreaElement | null {
  const box = document.getElementById('composer')
  return box instanceof HTMLTextAreaElement && !box.disabled ? box : null
}

function insert(box: HTMLTextAreaElement, text: string, from: number): void {
  box.focus()
  box.setSelectionRange(from, box.value.length)
  if (typeof document.execCommand !== 'function' || !document.execCommand('insertText', false, text)) {
    box.setRangeText(text, from, box.value.length, 'end')
    box.dispatchEvent(new Event('input', { bubbles: true }))
  }
}

/** Puts the cursor at the end of the message box and writes text there. */
export function typeInComposer(text: string): void {
  const box = composer()
  if (box) insert(box, text, box.value.length)
}

/** Replaces what the message box holds with text, the cursor at its end, without sending it. */
export function fillComposer(text: string): void {
  const box = composer()
  if (box) insert(box, text, 0)
}
