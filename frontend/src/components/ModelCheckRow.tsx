import type { ModelCheck } from '../backend'
import { checkBadge, checkOf, failsMost } from '../state/checks'
import { useAppState, useStore } from '../state/useAppState'

/**
 * A model's result on this machine's check, as a badge: "5/6 on this machine, 14 tok/s", in red
 * when the model fails most cases; "not checked" when it never was.
 */
export function CheckBadge({ result }: { result: ModelCheck | null | undefined }) {
  if (!result) return <span className="badge muted">not checked</span>
  const bad = failsMost(result)
  return (
    <span
      className={`badge ${bad ? 'err' : 'ok'}`}
      title={bad ? 'This model failed most of the check’s tasks on this machine: expect calls that do not work.' : undefined}
    >
      {checkBadge(result)}
    </span>
  )
}

/**
 * The check of the model in use, in the model menu: its result, or "Check" for one never
 * checked; while it runs, which case and how far, and Stop.
 */
export function ModelCheckRow({ model }: { model: string }) {
  const store = useStore()
  const state = useAppState((s) => checkOf(s.checks, model))
  if (!model) return null
  const result = state?.result ?? null
  if (state?.running) {
    return (
      <div className="model-check" data-testid="model-check" role="group" aria-label={`Checking ${model}`}>
        <div className="pull-head">
          <span>
            Checking {model}: {state.total > 0 ? `${state.ended} of ${state.total} done` : 'loading the model'}
            {state.current && ` · ${state.current}`}
          </span>
          <button type="button" onClick={() => void store.stopModelCheck(model)} disabled={state.stopped}>
            {state.stopped ? 'Stopping…' : 'Stop the check'}
          </button>
        </div>
        <progress max={Math.max(state.total, 1)} value={state.ended} aria-label={`Checking ${model}`} />
      </div>
    )
  }
  return (
    <div className="model-check" data-testid="model-check">
      <div className="pull-head">
        <span>
          {model}: <CheckBadge result={result} />
        </span>
        <button
          type="button"
          onClick={() => void store.checkModel(model)}
          title="Six short agent tasks in a scratch folder: whether its calls work, and how fast it answers here"
        >
          {result ? 'Check again' : 'Check'}
        </button>
      </div>
      {state?.error && <div className="tool-error">The check did not finish. {state.error}</div>}
    </div>
  )
}
