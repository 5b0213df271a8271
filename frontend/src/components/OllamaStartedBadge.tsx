import { useAppState } from '../state/useAppState'

/** Says that the Ollama server in use is the one Prototyper started, and stops when it quits. */
export function OllamaStartedBadge() {
  const status = useAppState((s) => s.ollama)
  if (!status?.running || !status.startedByApp) return null
  const log = status.logPath ? ` Its log: ${status.logPath}` : ''
  return (
    <span
      className="badge info ollama-started"
      data-testid="ollama-started"
      title={`Prototyper started this Ollama server at ${status.url} and stops it when it quits.${log}`}
    >
      Ollama (started by Prototyper)
    </span>
  )
}
