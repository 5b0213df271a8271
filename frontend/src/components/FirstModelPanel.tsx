import { useEffect } from 'react'
import { useAppState, useStore } from '../state/useAppState'
import { formatBytes } from './format'
import { PullBar } from './PullBar'

/** How often the offer asks the server again, so that a model pulled elsewhere shows up. */
export const firstModelPollMs = 3000

/**
 * Shown instead of the chat while Ollama runs but has no model: a short list of small models
 * that call tools (the Go side's one list), each pulled with one button and the progress bar of
 * every pull. Without a model chosen yet, the recommended one has the focus: Enter pulls it.
 */
export function FirstModelPanel() {
  const store = useStore()
  const starters = useAppState((s) => s.starters)
  const pulls = useAppState((s) => s.pulls)
  const startedByApp = useAppState((s) => !!s.ollama?.startedByApp)
  const modelChosen = useAppState((s) => !!s.config?.model)
  useEffect(() => {
    const id = setInterval(() => void store.refreshModels(), firstModelPollMs)
    return () => clearInterval(id)
  }, [store])
  const recommended = starters.find((m) => m.recommended) ?? starters[0]
  return (
    <section className="first-model" aria-labelledby="first-model-title" data-testid="first-model">
      <h2 id="first-model-title">Get a first model</h2>
      <p>
        Ollama{startedByApp ? ' (started by Prototyper)' : ''} is running but has no model yet. Pick one to download: each
        of these is small and can call the tools the agent writes files with.
      </p>
      <ul className="starter-list">
        {starters.map((m) => {
          const pull = pulls[m.name]
          return (
            <li key={m.name} className="starter" data-testid="starter-model">
              <div className="starter-head">
                <button
                  type="button"
                  className={m.recommended ? 'primary' : undefined}
                  autoFocus={m === recommended && !modelChosen}
                  disabled={!!pull && !pull.done}
                  aria-label={`Pull ${m.name}, about ${formatBytes(m.size)}`}
                  onClick={() => void store.pullModel(m.name)}
                >
                  Pull {m.name}
                </button>
                <span className="muted">
                  {m.parameterSize} · about {formatBytes(m.size)}
                </span>
                {m.recommended && <span className="badge ok">recommended</span>}
              </div>
              <p className="starter-good-at">{m.goodAt}</p>
              {m.recommended && m.why && <p className="starter-why small">{m.why}</p>}
              {pull && <PullBar pull={pull} />}
            </li>
          )
        })}
      </ul>
      {recommended && (
        <p className="muted small">
          Or in a terminal: <code>prototyper pull {recommended.name}</code>. A model pulled elsewhere appears here by itself.
        </p>
      )}
    </section>
  )
}
