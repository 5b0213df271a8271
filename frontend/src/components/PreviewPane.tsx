// The Preview pane: the folder's web page beside the chat, in a frame of another origin that
// may run scripts but not reach the window (not its document, not its navigation, no
// pop-ups). Its bar picks the page and the width, counts what the page reported
// and asks the model to read it and fix it ("Fix these").

import { createContext, useContext, useEffect, useSyncExternalStore } from 'react'
import { matches, previewShortcut, previewShotShortcut, previewWideShortcut } from '../keyboard/shortcuts'
import { errorCount, previewWidths, type PreviewState, type PreviewStore, type PreviewWidth } from '../state/preview'
import { Icon } from './icons'
import { ShortcutButton } from './ShortcutButton'
import { DevServerList, useDevServers } from './DevServers'

export const PreviewContext = createContext<PreviewStore | null>(null)

function usePreview<T>(store: PreviewStore, select: (s: PreviewState) => T): T {
  return useSyncExternalStore(store.subscribe, () => select(store.getState()))
}

/**
 * What the frame may do. Its page keeps its folder's origin on the preview server
 * (allow-same-origin; each folder has a port of its own), which is not the window's: the same-origin policy keeps it from the window's document, and its own
 * storage and its scripts' errors (muted for an opaque origin) work as in a browser. No
 * allow-top-navigation or allow-popups: it cannot take the window elsewhere or open another.
 * The app's bindings are out of its reach whatever its origin (bindingsguard_linux.go).
 */
export const previewSandbox = 'allow-scripts allow-same-origin allow-forms allow-modals allow-pointer-lock'

/** The pane when the window has a preview store (the app's; tests mount the window without). */
export function PreviewHost() {
  const store = useContext(PreviewContext)
  return store ? <PreviewPane store={store} /> : null
}

function usePreviewShortcuts(store: PreviewStore) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      const which = matches(e, previewShortcut)
        ? store.toggle
        : matches(e, previewWideShortcut)
          ? store.toggleWide
          : matches(e, previewShotShortcut) && store.getState().open
            ? () => void attachScreenshot(store)
            : null
      if (!which) return
      e.preventDefault()
      e.stopPropagation()
      which()
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [store])
}

/**
 * Attaches a screenshot of the frame shown (the part of it in the window) to the composer,
 * which then has the focus: the message is typed and sent from there.
 */
async function attachScreenshot(store: PreviewStore): Promise<void> {
  const frame = document.querySelector<HTMLIFrameElement>('[data-testid="preview-frame"]')
  if (!frame) return
  const r = frame.getBoundingClientRect()
  // the frame's content box, without its border, cut to the stage that scrolls it and to the window
  const stage = frame.parentElement?.getBoundingClientRect() ?? new DOMRect(0, 0, window.innerWidth, window.innerHeight)
  const x = Math.max(0, stage.left, r.left + frame.clientLeft)
  const y = Math.max(0, stage.top, r.top + frame.clientTop)
  const right = Math.min(window.innerWidth, stage.right, r.left + frame.clientLeft + frame.clientWidth)
  const bottom = Math.min(window.innerHeight, stage.bottom, r.top + frame.clientTop + frame.clientHeight)
  const ok = await store.attachScreenshot({ x, y, width: right - x, height: bottom - y }, window.innerWidth)
  if (ok) document.getElementById('composer')?.focus()
}

const widthNames: Record<PreviewWidth, string> = { desktop: 'Desktop', tablet: 'Tablet', phone: 'Phone' }

export function PreviewPane({ store }: { store: PreviewStore }) {
  usePreviewShortcuts(store)
  const s = usePreview(store, (x) => x)
  const [servers] = useDevServers()
  if (!s.open) return null
  const n = errorCount(s.report)
  const page = s.site && s.page ? `${s.site.url}${s.page.split('/').map(encodeURIComponent).join('/')}?r=${s.reload}` : ''
  const src = servers.shown ? servers.shown.url : page
  const frameWidth = previewWidths[s.width]
  return (
    <aside className={s.wide ? 'preview-pane wide' : 'preview-pane'} aria-label="Preview" data-testid="preview-pane">
      <div className="preview-bar">
        {s.site && (s.site.pages?.length ?? 0) > 0 && (
          <select aria-label="Page to preview" value={s.page} onChange={(e) => store.pick(e.target.value)}>
            {(s.site.pages ?? []).map((p) => (
              <option key={p} value={p}>
                {p}
              </option>
            ))}
          </select>
        )}
        <div className="preview-widths" role="group" aria-label="Preview width">
          {(Object.keys(widthNames) as PreviewWidth[]).map((w) => (
            <button key={w} type="button" className="link" aria-pressed={s.width === w} onClick={() => store.setWidth(w)}>
              {widthNames[w]}
            </button>
          ))}
        </div>
        <button type="button" className="link" onClick={store.reloadNow} aria-label="Reload the preview" title="Reload the preview">
          ↻
        </button>
        {!servers.shown && (
          <span className={n > 0 ? 'badge err' : 'badge ok'} role="status" data-testid="preview-errors">
            {s.report ? (n === 1 ? '1 error' : `${n} errors`) : 'Loading…'}
          </span>
        )}
        {n > 0 && !servers.shown && (
          <button type="button" onClick={() => void store.fixThese()} title="Ask the model to read what the page reported and fix it">
            Fix these
          </button>
        )}
        {src && (
          <ShortcutButton
            shortcut={previewShotShortcut}
            what="Attach a screenshot of the page to the message"
            className="link"
            onClick={() => void attachScreenshot(store)}
            aria-label="Attach a screenshot"
          >
            <Icon name="image" />
          </ShortcutButton>
        )}
        {s.shotError && (
          <span className="badge err" role="alert" data-testid="preview-shot-error">
            {s.shotError}
          </span>
        )}
        <span className="preview-spacer" />
        <ShortcutButton
          shortcut={previewWideShortcut}
          what={s.wide ? 'Show the chat beside the preview' : 'Give the preview the whole width'}
          className="link"
          onClick={store.toggleWide}
          aria-label={s.wide ? 'Narrow the preview' : 'Widen the preview'}
        >
          {s.wide ? '⇥' : '⇤'}
        </ShortcutButton>
        <ShortcutButton shortcut={previewShortcut} what="Close the preview" className="link" onClick={store.toggle} aria-label="Close the preview">
          ✕
        </ShortcutButton>
      </div>
      <DevServerList />
      {src ? (
        <div className="preview-stage">
          <iframe
            key={servers.shown?.url ?? s.site?.url}
            title={servers.shown ? `Preview of the server at :${servers.shown.port}` : `Preview of ${s.page}`}
            src={src}
            sandbox={previewSandbox}
            referrerPolicy="no-referrer-when-downgrade"
            style={frameWidth ? { width: `${frameWidth}px` } : undefined}
            data-testid="preview-frame"
          />
        </div>
      ) : (
        <p className="preview-empty" role="note">
          {s.error || 'Loading…'}
        </p>
      )}
    </aside>
  )
}
