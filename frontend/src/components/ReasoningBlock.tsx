import { useEffect, useLayoutEffect, useRef, useState } from 'react'

/** Seconds since `since` (ms), counting while `live`; null without a start. */
function useElapsedSeconds(since: number | null | undefined, live: boolean): number | null {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    if (!live || since == null) return
    const t = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(t)
  }, [live, since])
  if (since == null) return null
  return Math.max(0, Math.floor((now - since) / 1000))
}

/**
 * The model's thinking: streamed live with the seconds it has been thinking, the box following
 * the newest line (unless the user scrolled up in it to read), then folded to "Thought for Ns".
 */
export function ReasoningBlock({
  text,
  ms,
  live,
  since,
}: {
  text: string
  ms: number | null
  live: boolean
  /** When the thinking started (ms since the epoch), for the live count. */
  since?: number | null
}) {
  const [open, setOpen] = useState(false)
  const box = useRef<HTMLDivElement>(null)
  const following = useRef(true)
  const elapsed = useElapsedSeconds(since, live)
  useLayoutEffect(() => {
    const el = box.current
    if (live && el && following.current) el.scrollTop = el.scrollHeight
  }, [text, live])
  if (live) {
    return (
      <div className="reasoning live" data-testid="reasoning">
        <div className="reasoning-head">
          <span className="spinner" aria-hidden="true" /> Thinking…
          {elapsed !== null && (
            <span className="muted small" data-testid="thinking-seconds">
              {' '}
              {elapsed} s
            </span>
          )}
        </div>
        <div
          className="reasoning-text"
          ref={box}
          data-testid="reasoning-text"
          onScroll={(e) => {
            const el = e.currentTarget
            following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 24
          }}
        >
          {text}
        </div>
      </div>
    )
  }
  const seconds = ms === null ? null : Math.max(1, Math.round(ms / 1000))
  return (
    <div className="reasoning" data-testid="reasoning">
      <button type="button" className="reasoning-head" aria-expanded={open} onClick={() => setOpen(!open)}>
        {open ? '▾' : '▸'} {seconds === null ? 'Thoughts' : `Thought for ${seconds}s`}
      </button>
      {open && <div className="reasoning-text">{text}</div>}
    </div>
  )
}
