import { useCallback, useEffect, useRef } from 'react'
import { focusComposer } from '../keyboard/menus'
import type { UndoOptions } from '../backend'
import { headerWorkspace } from '../state/store'
import { useAppState, useStore } from '../state/useAppState'
import { DiffView } from './ToolCard'
import { baseName } from './format'

const statusWords: Record<string, string> = { created: 'created', changed: 'changed', deleted: 'deleted' }

/**
 * The review of a chat: every file its runs created, changed or deleted, with the combined diff
 * from before the chat to now, and a per-file Revert that goes through the same undo as the
 * runs' (so a file changed by the user since is refused, and the revert can be redone).
 * Revert all does the same for every file at once; Accept all keeps the files as they are and
 * closes the review. Closed, it gives the focus back where it was when it opened, else to the
 * message box; a file reverted leaves the focus in the review, never on nothing.
 */
export function ChangesPanel() {
  const store = useStore()
  const review = useAppState((s) => s.review)
  const folder = useAppState(headerWorkspace)
  const region = useRef<HTMLElement>(null)
  const open = !!review
  // Opened (Alt+C or its button), the review takes the focus: Tab reaches its files. Closed
  // however (Esc, ✕, Accept all, Alt+C) with the focus in it, the focus goes back.
  useEffect(() => {
    if (!open) return
    const opener = document.activeElement
    region.current?.focus()
    return () => {
      const at = document.activeElement
      if (at && at !== document.body && at.isConnected) return // elsewhere meanwhile: it stays there
      if (opener instanceof HTMLElement && opener.isConnected && opener !== document.body) opener.focus()
      else focusComposer()
    }
  }, [open])
  const close = useCallback(() => store.closeReview(), [store])
  useEffect(() => {
    if (!open) return
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape' && !document.querySelector('[aria-modal="true"]')) close()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [open, close])
  // the button pressed goes with its file: the keys stay in the review
  const revert = async (opts: UndoOptions) => {
    await store.undo(opts, review?.chatId)
    const at = document.activeElement
    if (!at || at === document.body || !at.isConnected) {
      if (region.current?.isConnected) region.current.focus()
      else focusComposer()
    }
  }
  if (!review) return null
  return (
    <section
      ref={region}
      tabIndex={-1}
      className="changes-panel"
      role="region"
      aria-label="Changes of this chat"
      data-testid="changes-panel"
    >
      <div className="row">
        <h2>Changes</h2>
        <button type="button" className="link" aria-label="Close the changes" onClick={close}>
          ✕
        </button>
      </div>
      {review.files.length > 0 && (
        <div className="row changes-all">
          <button type="button" onClick={close} title="Keep every change as it is now and close this review; each run can still be undone">
            Accept all
          </button>
          <button type="button" onClick={() => void revert({ all: true })} title="Put every file back as it was before this chat">
            Revert all
          </button>
          <span className="muted small">Accept all keeps these changes and closes the review; Revert all puts every file back as it was before this chat.</span>
        </div>
      )}
      {review.loading && review.files.length === 0 && <div className="muted">Reading the files…</div>}
      {!review.loading && review.files.length === 0 && (
        <div className="muted">Every file this chat changed is as it was before the chat.</div>
      )}
      <ul className="changes-list">
        {review.files.map((f) => {
          // a file of the chat's earlier folder is named with it, beside one of the same name here
          const earlier = !!f.workspace && f.workspace !== folder
          const name = earlier ? `${f.path} in ${baseName(f.workspace ?? '')}` : f.path
          return (
            <li key={`${f.workspace}\0${f.path}`} data-testid="changed-file" data-path={f.path} data-status={f.status}>
              <div className="row">
                <span className="tool-args">{f.path}</span>
                {earlier && (
                  <span className="muted small changed-folder" title={f.workspace}>
                    in {baseName(f.workspace)}, the chat’s earlier folder
                  </span>
                )}
                <span className={`badge ${f.status === 'deleted' ? 'err' : f.status === 'created' ? 'ok' : 'warn'}`}>
                  {statusWords[f.status] ?? f.status}
                </span>
                {f.status !== 'deleted' && (
                  <button
                    type="button"
                    className="link"
                    aria-label={`Open ${name}`}
                    onClick={() => void store.openPath(f.path, false, { workspace: f.workspace })}
                  >
                    Open
                  </button>
                )}
                <button
                  type="button"
                  aria-label={`Revert ${name} to before this chat`}
                  onClick={() => void revert({ path: f.path, workspace: f.workspace })}
                >
                  Revert
                </button>
              </div>
              {f.diff ? <DiffView diff={f.diff} path={f.path} /> : null}
            </li>
          )
        })}
      </ul>
    </section>
  )
}
