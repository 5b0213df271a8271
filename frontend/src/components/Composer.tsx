import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import type { PromptBudget } from '../backend'
import { overBudget } from '../state/promptBudget'

export interface ComposerProps {
  /** Why the user cannot send yet; the composer is disabled while it is set. */
  disabledReason: string
  busy: boolean
  /** A note shown above the box that does not block sending (e.g. a model without tools). */
  warning?: string
  onSend: (text: string) => Promise<void> | void
  onStop: () => void
  /** How long a message may be for the model; a longer draft is not sent, and says why. */
  budget?: PromptBudget
  /** ↑ in an empty box: edit the last message sent (false when there is none to edit). */
  onEditLast?: () => boolean
  /** Text given back to the box (queued messages a stopped run never took), taken once. */
  restored?: string
  onRestored?: () => string
}

/**
 * The message box: Enter sends, Shift+Enter adds a line, Esc stops a busy run, ↑ in an empty box
 * edits the last message sent. It grows with its text. A draft too long
 * for the model's context says so as it is typed or pasted, and is not sent.
 */
export function Composer({ disabledReason, busy, warning, onSend, onStop, budget, onEditLast, restored, onRestored }: ComposerProps) {
  const [draft, setDraft] = useState('')
  const box = useRef<HTMLTextAreaElement>(null)
  const disabled = disabledReason !== ''
  const tooLong = useMemo(() => overBudget(draft, budget), [draft, budget])

  // Text given back is added to what is being typed, never in place of it.
  useEffect(() => {
    if (!restored || !onRestored) return
    const text = onRestored()
    if (text) setDraft((d) => (d.trim() ? `${d}\n\n${text}` : text))
  }, [restored, onRestored])

  // The box grows with its text, up to a third of the window; beyond that it scrolls.
  useLayoutEffect(() => {
    const el = box.current
    if (!el) return
    el.style.height = 'auto'
    const limit = Math.max(120, Math.round((typeof window !== 'undefined' ? window.innerHeight : 900) / 3))
    el.style.height = `${Math.min(el.scrollHeight + 2, limit)}px`
    el.style.overflowY = el.scrollHeight + 2 > limit ? 'auto' : 'hidden'
  }, [draft])

  // The box has the focus whenever it can be used: at start, and once configuration arrives.
  useEffect(() => {
    if (!disabled) box.current?.focus()
  }, [disabled])

  const send = () => {
    const text = draft.trim()
    if (!text || disabled || tooLong) return
    setDraft('')
    void Promise.resolve(onSend(text)).catch(() => setDraft((d) => d || text))
  }

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
      e.preventDefault()
      send()
    } else if (e.key === 'Escape' && busy) {
      e.preventDefault()
      onStop()
    } else if (e.key === 'ArrowUp' && !draft && !e.shiftKey && !e.altKey && !e.ctrlKey && onEditLast?.()) {
      e.preventDefault()
    }
  }

  return (
    <form
      className="composer"
      onSubmit={(e) => {
        e.preventDefault()
        send()
      }}
    >
      {disabled && (
        <div className="composer-note" role="status" data-testid="composer-disabled-reason">
          {disabledReason}
        </div>
      )}
      {!disabled && warning && (
        <div className="composer-note warn" role="status" data-testid="composer-warning">
          {warning}
        </div>
      )}
      {!disabled && tooLong && (
        <div className="composer-note err" role="alert" data-testid="composer-too-long">
          {tooLong}
        </div>
      )}
      <div className="composer-row">
        <textarea
          ref={box}
          id="composer"
          autoFocus
          data-testid="composer"
          aria-label="Message"
          value={draft}
          disabled={disabled}
          placeholder={busy ? 'Add to the running task… (Enter sends, Esc stops)' : 'Ask Prototyper to build something…'}
          onChange={(e) => setDraft(e.target.value)}
          onKeyDown={onKeyDown}
          rows={2}
        />
        <div className="composer-actions">
          {busy && (
            <button type="button" className="stop" data-testid="stop" onClick={onStop} title="Stop (Esc)">
              ■ Stop
            </button>
          )}
          <button type="submit" className="primary" data-testid="send" disabled={disabled || !draft.trim() || !!tooLong}>
            Send
          </button>
        </div>
      </div>
    </form>
  )
}
