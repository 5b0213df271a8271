import { useEffect, useState } from 'react'

/**
 * "Loading MODEL… Ns", counting, while Ollama loads the model before it answers. No status of
 * its own: the header's run state says "Loading MODEL…" once, where a counting status would
 * repeat it every second.
 */
export function ModelLoadingNote({ model, since }: { model: string; since: number }) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [])
  const seconds = Math.max(0, Math.floor((now - since) / 1000))
  return (
    <div className="notice info model-loading" data-testid="model-loading">
      <span className="spinner" aria-hidden="true" /> Loading {model || 'the model'}… {seconds}s
    </div>
  )
}
