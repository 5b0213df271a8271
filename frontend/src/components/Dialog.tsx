import { type ReactNode, useRef } from 'react'
import { useModalFocus } from './modalFocus'

/**
 * A modal dialog over the window: Esc or a press beside it closes it (the key goes no further:
 * it never also stops a run), and while it is open the chat behind takes no keys: Tab goes round
 * its controls (useModalFocus).
 */
export function Dialog({
  label,
  testId,
  className = '',
  top = false,
  onClose,
  children,
}: {
  label: string
  testId: string
  className?: string
  /** Near the top of the window (a search), rather than in its middle. */
  top?: boolean
  onClose: () => void
  children: ReactNode
}) {
  const ref = useRef<HTMLDivElement>(null)
  useModalFocus(ref, onClose)
  return (
    <div role="presentation" className={`modal-backdrop${top ? ' top' : ''}`} onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <div
        ref={ref}
        className={`modal ${className}`}
        role="dialog"
        aria-modal="true"
        aria-label={label}
        data-testid={testId}
        onKeyDown={(e) => {
          if (e.key === 'Escape') {
            e.stopPropagation()
            e.preventDefault()
            onClose()
          }
        }}
      >
        {children}
      </div>
    </div>
  )
}
