import { type RefObject, useEffect, useRef } from 'react'
import { focusIfLost } from '../keyboard/menus'

// The open modal dialogs, the last one on top: only the top one holds the keys.
const open: RefObject<HTMLElement | null>[] = []

const focusable = 'a[href], button:not([disabled]), input:not([disabled]), select:not([disabled]), textarea:not([disabled]), summary, [tabindex]:not([tabindex="-1"])'

/** The controls of a dialog that Tab reaches, in order (a closed <details> hides all but its summary). */
function tabStops(dialog: HTMLElement): HTMLElement[] {
  return Array.from(dialog.querySelectorAll<HTMLElement>(focusable)).filter((el) => {
    if (el.hidden || el.closest('[hidden], [aria-hidden="true"]')) return false
    const details = el.parentElement?.closest('details')
    return !details || details.open || (el.tagName === 'SUMMARY' && el.parentElement === details)
  })
}

/**
 * Keeps the keyboard in the modal dialog ref while it is open: Tab and Shift+Tab go round its
 * controls, a focus that lands behind it comes back, and Esc closes it from anywhere (the
 * dialog's own handler has it when the focus is inside; this one when it is not). On close the
 * focus goes back to where it was, when that is still there and takes keys, or else somewhere
 * useful ([focusIfLost]), never nowhere.
 */
export function useModalFocus(ref: RefObject<HTMLElement | null>, onClose: () => void): void {
  const close = useRef(onClose)
  close.current = onClose
  useEffect(() => {
    const before = document.activeElement instanceof HTMLElement ? document.activeElement : null
    const node = ref.current
    open.push(ref)
    const top = () => open[open.length - 1] === ref && ref.current
    const onKeyDown = (e: KeyboardEvent) => {
      const dialog = top()
      if (!dialog || e.defaultPrevented) return
      const inside = dialog.contains(document.activeElement)
      if (e.key === 'Escape' && !inside) {
        e.preventDefault()
        e.stopPropagation()
        close.current()
      } else if ((e.key === 'Tab' || e.keyCode === 9) && !e.ctrlKey && !e.altKey && !e.metaKey) {
        const stops = tabStops(dialog)
        const at = stops.indexOf(document.activeElement as HTMLElement)
        const next = !inside || stops.length === 0 ? stops[0] : e.shiftKey ? (at <= 0 ? stops[stops.length - 1] : null) : at === stops.length - 1 ? stops[0] : null
        if (next || stops.length === 0) {
          e.preventDefault()
          next?.focus()
        }
      }
    }
    const onFocusIn = (e: FocusEvent) => {
      const dialog = top()
      if (!dialog || !(e.target instanceof Node) || dialog.contains(e.target)) return
      // Another modal opened over this one is not behind it.
      if (e.target instanceof Element && e.target.closest('[aria-modal="true"]')) return
      // Shift+Tab from the first control went out backwards: round to the last one
      const stops = tabStops(dialog)
      const back = stops.length > 1 && e.relatedTarget === stops[0]
      stops[back ? stops.length - 1 : 0]?.focus()
    }
    window.addEventListener('keydown', onKeyDown, true)
    document.addEventListener('focusin', onFocusIn, true)
    return () => {
      window.removeEventListener('keydown', onKeyDown, true)
      document.removeEventListener('focusin', onFocusIn, true)
      open.splice(open.indexOf(ref), 1)
      const lost = !document.activeElement || document.activeElement === document.body || node?.contains(document.activeElement)
      if (lost && before?.isConnected && !before.closest('[aria-modal="true"]')) before.focus()
      // where it was may take no keys now (the composer, blocked by what the dialog saved)
      setTimeout(focusIfLost, 0)
    }
  }, [ref])
}
