import { useState } from 'react'

/** The model's thinking: streamed live, then folded to "Thought for Ns". */
export function ReasoningBlock({ text, ms, live }: { text: string; ms: number | null; live: boolean }) {
  const [open, setOpen] = useState(false)
  if (live) {
    return (
      <div className="reasoning live" data-testid="reasoning">
        <div className="reasoning-head">
          <span className="spinner" aria-hidden="true" /> Thinking…
        </div>
        <div className="reasoning-text">{text}</div>
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
