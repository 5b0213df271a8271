import { useCallback, useEffect, useRef, useState, type KeyboardEvent, type ReactNode, type RefObject } from 'react'
import { useMenuRequest, type MenuName } from '../keyboard/menus'
import type { WindowShortcut } from '../keyboard/shortcuts'
import { ShortcutButton } from './ShortcutButton'

/** Closes a popover on a press outside root while open. */
function useCloseOutside(open: boolean, root: RefObject<HTMLElement | null>, close: () => void): void {
  useEffect(() => {
    if (!open) return
    const onDown = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) close()
    }
    document.addEventListener('mousedown', onDown)
    return () => document.removeEventListener('mousedown', onDown)
  }, [open, root, close])
}

/**
 * A header menu (its request name, for the shortcut that opens it): a button (ref button) that
 * opens a popover inside root, with a text field (text). onOpen runs each time it opens.
 * close() empties the field and gives the focus back where it was when the menu opened (else
 * to the button), close(false) leaves the focus where it is; a press outside closes it, and so does Esc.
 * On the button, Enter, Space and ↓ open it.
 */
export function useHeaderMenu(name: MenuName, onOpen?: () => void) {
  const [open, setOpen] = useState(false)
  const [text, setText] = useState('')
  const root = useRef<HTMLDivElement>(null)
  const button = useRef<HTMLButtonElement>(null)
  // where the focus was when the menu opened (the composer, for a menu opened by its shortcut
  // while typing): closing gives it back there, so that the next key is not the button's
  const opener = useRef<Element | null>(null)
  const openIt = useCallback(() => {
    const was = document.activeElement
    opener.current = was && !root.current?.contains(was) ? was : null
    setOpen(true)
    onOpen?.()
  }, [onOpen])
  useMenuRequest(name, openIt)
  const close = useCallback((refocus = true) => {
    setOpen(false)
    setText('')
    if (!refocus) return
    const back = opener.current
    if (back instanceof HTMLElement && back.isConnected && back !== document.body) back.focus()
    else button.current?.focus()
  }, [])
  const closeOutside = useCallback(() => close(false), [close])
  useCloseOutside(open, root, closeOutside)
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && open) {
      e.stopPropagation()
      e.preventDefault()
      close()
    } else if (e.key === 'ArrowDown' && !open && e.target === button.current) {
      // as a menu button does: ↓ opens it (as Enter and Space do); a letter goes to the message box
      e.preventDefault()
      openIt()
    }
  }
  return { open, openIt, text, setText, root, button, close, onKeyDown }
}

/**
 * The markup of a header menu: its button (what it is, the shortcut that presses it too, and
 * label, what it shows) with beside after it, and the popover of children while it is open.
 */
export function HeaderMenu({
  menu,
  className,
  buttonClassName,
  testId,
  shortcut,
  what,
  label,
  beside,
  children,
}: {
  menu: ReturnType<typeof useHeaderMenu>
  className: string
  buttonClassName: string
  testId: string
  shortcut: WindowShortcut
  what: string
  label: ReactNode
  beside?: ReactNode
  children: ReactNode
}) {
  const { open, openIt, root, button, close, onKeyDown } = menu
  return (
    <div className={className} ref={root} onKeyDown={onKeyDown} data-menu-open={open ? 'true' : undefined}>
      <ShortcutButton
        shortcut={shortcut}
        what={what}
        ref={button}
        className={buttonClassName}
        data-testid={testId}
        aria-haspopup="listbox"
        aria-expanded={open}
        onClick={() => (open ? close() : openIt())}
      >
        {label} <span aria-hidden="true">▾</span>
      </ShortcutButton>
      {beside}
      {open && <div className="popover">{children}</div>}
    </div>
  )
}
