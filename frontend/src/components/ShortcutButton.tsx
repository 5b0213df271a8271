// A button that a keyboard shortcut also presses: it says so to assistive technology
// (aria-keyshortcuts) and in its tooltip, the same way everywhere.

import type { ReactNode, Ref } from 'react'
import { withShortcut } from '../keyboard/shortcuts'

/** A button for what (its tooltip, with the shortcut's keys after it) that shortcut presses too. */
export function ShortcutButton({
  shortcut,
  what,
  className,
  onClick,
  children,
  ...attributes
}: {
  shortcut: { label: string }
  what: string
  className: string
  onClick: () => void
  children: ReactNode
  ref?: Ref<HTMLButtonElement>
  'aria-label'?: string
  'aria-haspopup'?: 'listbox' | 'dialog'
  'aria-expanded'?: boolean
}) {
  return (
    <button
      type="button"
      className={className}
      aria-keyshortcuts={shortcut.label}
      title={withShortcut(what, shortcut)}
      onClick={onClick}
      {...attributes}
    >
      {children}
    </button>
  )
}
