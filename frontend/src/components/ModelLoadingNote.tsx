import { useEffect, useState } from 'react'

/** "Waiting for Ollama to load MODEL… Ns", counting, while a model loads before it answers. */
export function ModelLoadingNote({ model, since }: { model: string; since: number }) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000)
    return () => clearInterval(timer)
  }, [])
  const seconds = Math.max(0, Math.floor((now - since) / 1000))
  return (
    <div className="notice info model-loading" role="status" data-testid="model-loading">
      <span className="spinner" aria-hidden="true" /> Waiting for Ollama to load {model || 'the model'}… {seconds}s
    </div>
  )
}
