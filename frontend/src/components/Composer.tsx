import { useEffect, useLayoutEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react'
import type { PromptBudget } from '../backend'
import { overBudget } from '../state/promptBudget'
import { mentionAt, pickMention } from './fileMentions'
import { Icon } from './icons'
import { imageURL } from './Message'

export interface ComposerProps {
  /** Why the user cannot send yet; the composer is disabled while it is set. */
  disabledReason: string
  busy: boolean
  /** A note shown above the box that does not block sending (e.g. a model without tools). */
  warning?: string
  /** images (base64) only when some were pasted or dropped. */
  onSend: (text: string, images?: string[]) => Promise<void> | void
  onStop: () => void
  /** How long a message may be for the model; a longer draft is not sent, and says why. */
  budget?: PromptBudget
  /** ↑ in an empty box: edit the last message sent (false when there is none to edit). */
  onEditLast?: () => boolean
  /** Text given back to the box (queued messages a stopped run never took), taken once. */
  restored?: string
  onRestored?: () => string
  /** Images (base64) given back with that text, or attached from outside the box (the preview's screenshot), taken once. */
  onRestoredImages?: () => string[]
  /** How many such images wait: images alone are taken too. */
  restoredImages?: number
  /** Whether the model reads images: false refuses pasted or dropped images before sending. */
  vision?: boolean
  /** The model's name, for the sentence that refuses images. */
  model?: string
  /** Files of the workspace whose path contains a query: offered after an @ typed in the box. */
  suggestFiles?: (query: string) => Promise<string[]>
  /** Asks for image files to attach (base64); the Attach button shows when it is given. */
  pickImages?: () => Promise<string[]>
  /** The chat the box types into ('' for a new one): each keeps its own unsent text and images. */
  draftKey?: string
  /** The unsent text kept for a chat the box moves to (from an earlier run of the app). */
  savedDraft?: (key: string) => string
  /** The box's text changed: kept, so that quitting loses none of it. */
  onDraft?: (key: string, text: string) => void
  /** The unsent images kept for a chat the box moves to (from an earlier run of the app). */
  savedImages?: (key: string) => string[]
  /** The box's images changed: kept, as its text is. */
  onDraftImages?: (key: string, images: string[]) => void
}

/** How the box's unsent text and images are kept across chats and runs of the app. */
interface DraftKeeping {
  saved?: (key: string) => string
  onDraft?: (key: string, text: string) => void
  savedImages?: (key: string) => string[]
  onDraftImages?: (key: string, images: string[]) => void
}

/**
 * Keeps each chat's unsent text and images apart: when the box moves to another chat (picked in
 * the list, or Ctrl+N), what was typed is put away with the chat it was typed in, and what was
 * typed in the chat it moves to comes back. Each text and each set of images is also handed to
 * onDraft and onDraftImages as it changes, and saved and savedImages give back what an earlier
 * run of the app kept for a chat the box moves to.
 */
function useDraftPerChat(
  key: string,
  draft: string,
  setDraft: (d: string) => void,
  images: string[],
  setImages: (i: string[]) => void,
  { saved, onDraft, savedImages, onDraftImages }: DraftKeeping,
) {
  const kept = useRef(new Map<string, { text: string; images: string[] }>())
  const shownKey = useRef(key)
  useEffect(() => {
    const was = shownKey.current
    if (was === key) return
    shownKey.current = key
    // what the box holds as the key changes was typed in the chat it leaves (a message sent
    // as it starts its chat has left the box already)
    if (draft || images.length > 0) kept.current.set(was, { text: draft, images })
    // what the keeper holds for the chat wins (it has what was given back to it meanwhile)
    const back = kept.current.get(key)
    kept.current.delete(key)
    setDraft(saved ? saved(key) : (back?.text ?? ''))
    setImages(savedImages ? savedImages(key) : (back?.images ?? []))
    // only the key moves the draft: the text and images are read as they are when it does
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key])
  // each text the box holds is kept for its chat; as the key moves, the box still holds the
  // chat it leaves, until the text of the chat it moves to comes back just above. The empty box
  // a mount starts with is no text typed: reported, it would forget a text kept for the chat
  // when the kept texts were read before the first render's effects ran.
  useReportedChanges(key, draft, onDraft, (a, b) => a === b)
  useReportedChanges(key, images, onDraftImages, (a, b) => a.length === b.length && a.every((x, i) => x === b[i]))
}

/**
 * Reports value for key only when it differs from the value last seen for that key: the value a
 * mount starts with, and the one the box holds as its key moves, are not reported. Effects that
 * run twice (React's StrictMode mounts twice) report nothing the second time.
 */
function useReportedChanges<T>(key: string, value: T, report: ((key: string, value: T) => void) | undefined, same: (a: T, b: T) => boolean) {
  const seen = useRef({ key, value })
  useEffect(() => {
    const last = seen.current
    if (last.key === key && same(last.value, value)) return
    seen.current = { key, value }
    if (last.key === key) report?.(key, value)
    // same is a comparison, not a value the report depends on
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [key, value, report])
}

/** Reads a file as base64 (without the data URL's head). */
function readBase64(file: Blob): Promise<string> {
  return new Promise((resolve, reject) => {
    const r = new FileReader()
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ''))
    r.onerror = () => reject(r.error ?? new Error('the file could not be read'))
    r.readAsDataURL(file)
  })
}

/**
 * The images on the system clipboard, read through the asynchronous clipboard API. WebKitGTK
 * hands a paste event no image (its clipboardData is empty when the clipboard holds only
 * image/png), yet lets the page read the clipboard while that event is handled.
 */
async function clipboardImages(): Promise<Blob[]> {
  const read = typeof navigator !== 'undefined' ? navigator.clipboard?.read?.bind(navigator.clipboard) : undefined
  if (!read) return []
  const items = await read()
  const blobs = await Promise.all(
    items.flatMap((item) => item.types.filter((t) => t.startsWith('image/')).slice(0, 1).map((t) => item.getType(t))),
  )
  return blobs
}

/**
 * The message box: Enter sends, Shift+Enter adds a line, Esc stops a busy run, ↑ in an empty box
 * edits the last message sent. It grows with its text. A draft too long
 * for the model's context says so as it is typed or pasted, and is not sent.
 */
export function Composer({
  disabledReason,
  busy,
  warning,
  onSend,
  onStop,
  budget,
  onEditLast,
  restored,
  onRestored,
  onRestoredImages,
  restoredImages = 0,
  vision,
  model,
  suggestFiles,
  pickImages,
  draftKey = '',
  savedDraft,
  onDraft,
  savedImages,
  onDraftImages,
}: ComposerProps) {
  const [draft, setDraft] = useState('')
  const [images, setImages] = useState<string[]>([])
  useDraftPerChat(draftKey, draft, setDraft, images, setImages, { saved: savedDraft, onDraft, savedImages, onDraftImages })
  // @path completion: the @word being typed, the files it matches, the one highlighted
  const [mention, setMention] = useState<{ start: number; caret: number; files: string[]; active: number } | null>(null)
  // a file pasted or dropped that is no image: said until the next attachment or message
  const [noImage, setNoImage] = useState(false)
  const blind = images.length > 0 && vision === false
  const box = useRef<HTMLTextAreaElement>(null)
  const disabled = disabledReason !== ''
  const tooLong = useMemo(() => overBudget(draft, budget), [draft, budget])

  // Text given back is added to what is being typed, never in place of it; so are its images.
  useEffect(() => {
    if (!restored && !restoredImages) return
    const text = onRestored?.() ?? ''
    if (text) setDraft((d) => (d.trim() ? `${d}\n\n${text}` : text))
    const pics = onRestoredImages?.() ?? []
    if (pics.length > 0) setImages((i) => [...i, ...pics])
  }, [restored, restoredImages, onRestored, onRestoredImages])

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
    if (!text || disabled || tooLong || blind) return
    const sent = images
    setDraft('')
    setImages([])
    setNoImage(false)
    void Promise.resolve(sent.length > 0 ? onSend(text, sent) : onSend(text)).catch(() => {
      setDraft((d) => d || text)
      setImages((i) => (i.length ? i : sent))
    })
  }

  const add = (pics: Blob[]) => {
    if (pics.length > 0) void Promise.all(pics.map(readBase64)).then((b64) => setImages((i) => [...i, ...b64]))
  }

  // Images pasted or dropped into the composer go with the next message.
  const attach = (data: DataTransfer | null | undefined): boolean => {
    setNoImage(false)
    // files where the webview lists them, else the items (some webviews list a pasted image only there)
    const files = Array.from(data?.files ?? [])
    const items = Array.from(data?.items ?? [])
      .filter((i) => i.kind === 'file')
      .map((i) => i.getAsFile())
      .filter((f): f is File => f !== null)
    const all = files.length > 0 ? files : items
    const pics = all.filter((f) => f.type.startsWith('image/'))
    if (all.length > 0 && pics.length < all.length) setNoImage(true)
    if (pics.length === 0) return all.length > 0
    add(pics)
    return true
  }

  // Files dropped anywhere on the window come to the composer: a drop the page left alone
  // would make the webview open the file in place of the app.
  const attachRef = useRef(attach)
  useEffect(() => {
    attachRef.current = attach
  })
  useEffect(() => {
    const files = (e: DragEvent) => !!e.dataTransfer && (Array.from(e.dataTransfer.types ?? []).includes('Files') || (e.dataTransfer.files?.length ?? 0) > 0)
    const over = (e: DragEvent) => {
      if (!files(e)) return
      e.preventDefault()
      if (e.dataTransfer) e.dataTransfer.dropEffect = disabled ? 'none' : 'copy'
    }
    const drop = (e: DragEvent) => {
      if (!files(e)) return
      e.preventDefault()
      if (!disabled) attachRef.current(e.dataTransfer)
    }
    window.addEventListener('dragover', over)
    window.addEventListener('drop', drop)
    return () => {
      window.removeEventListener('dragover', over)
      window.removeEventListener('drop', drop)
    }
  }, [disabled])

  // A paste that brings no text and no image the event lists may still be an image on the
  // clipboard (WebKitGTK's case): it is read from the clipboard itself.
  const paste = (data: DataTransfer | null) => {
    if (attach(data)) return true
    if (Array.from(data?.types ?? []).includes('text/plain')) return false
    void clipboardImages().then(add, () => {})
    return false
  }

  const edit = (value: string, caret: number) => {
    setDraft(value)
    const m = suggestFiles ? mentionAt(value, caret) : null
    if (!m || !suggestFiles) {
      setMention(null)
      return
    }
    void suggestFiles(m.query).then(
      (files) => setMention(files.length ? { start: m.start, caret, files, active: 0 } : null),
      () => setMention(null),
    )
  }

  const pick = (path: string) => {
    if (!mention) return
    const next = pickMention(draft, mention.start, mention.caret, path)
    setDraft(next.text)
    setMention(null)
    requestAnimationFrame(() => box.current?.setSelectionRange(next.caret, next.caret))
  }

  const onKeyDown = (e: KeyboardEvent<HTMLTextAreaElement>) => {
    if (mention && (e.key === 'ArrowDown' || e.key === 'ArrowUp')) {
      e.preventDefault()
      const n = mention.files.length
      setMention({ ...mention, active: (mention.active + (e.key === 'ArrowDown' ? 1 : n - 1)) % n })
    } else if (mention && (e.key === 'Enter' || e.key === 'Tab') && !e.shiftKey) {
      e.preventDefault()
      pick(mention.files[mention.active])
    } else if (mention && e.key === 'Escape') {
      e.preventDefault()
      setMention(null)
    } else if (e.key === 'Enter' && !e.shiftKey && !e.nativeEvent.isComposing) {
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
      {!disabled && blind && (
        <div className="composer-note err" role="alert" data-testid="composer-no-vision">
          {model || 'This model'} cannot see images: remove them, or pick a model with the “vision” badge.
        </div>
      )}
      {!disabled && noImage && (
        <div className="composer-note err" role="alert" data-testid="composer-not-an-image">
          Only images (PNG, JPEG, GIF, WebP) can go with a message; name a file of the workspace with @path instead.
        </div>
      )}
      {images.length > 0 && (
        <div className="composer-images" data-testid="composer-images">
          {images.map((b64, i) => (
            <span key={i} className="composer-image">
              <img src={imageURL(b64)} alt={`Image ${i + 1} to send`} />
              <button
                type="button"
                aria-label={`Remove image ${i + 1}`}
                title="Remove"
                onClick={() => setImages((all) => all.filter((_, j) => j !== i))}
              >
                ×
              </button>
            </span>
          ))}
        </div>
      )}
      {mention && (
        <ul className="file-mentions" id="file-mentions" role="listbox" aria-label="Files of the workspace" data-testid="file-mentions">
          {mention.files.map((f, i) => (
            <li
              key={f}
              id={`file-mention-${i}`}
              role="option"
              aria-selected={i === mention.active}
              onMouseDown={(e) => {
                e.preventDefault()
                pick(f)
              }}
            >
              {f}
            </li>
          ))}
        </ul>
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
          onChange={(e) => edit(e.target.value, e.target.selectionStart ?? e.target.value.length)}
          aria-autocomplete="list"
          aria-controls={mention ? 'file-mentions' : undefined}
          aria-activedescendant={mention ? `file-mention-${mention.active}` : undefined}
          onKeyDown={onKeyDown}
          onPaste={(e) => {
            if (paste(e.clipboardData)) e.preventDefault()
          }}
          rows={2}
        />
        <div className="composer-actions">
          {pickImages && (
            <button
              type="button"
              data-testid="attach-images"
              aria-label="Attach images"
              title="Attach images (or paste or drop them into the box)"
              disabled={disabled}
              onClick={() => void pickImages().then((b64) => b64.length && setImages((i) => [...i, ...b64]))}
            >
              <Icon name="image" />
            </button>
          )}
          {busy && (
            <button type="button" className="stop" data-testid="stop" onClick={onStop} title="Stop (Esc)">
              ■ Stop
            </button>
          )}
          <button type="submit" className="primary" data-testid="send" disabled={disabled || !draft.trim() || !!tooLong || blind}>
            Send
          </button>
        </div>
      </div>
    </form>
  )
}
