import type { PullState } from '../state/store'
import { useStore } from '../state/useAppState'
import { formatBytes } from './format'

/** One download of a model: its progress, speed, and how it ended. */
export function PullBar({ pull }: { pull: PullState }) {
  const store = useStore()
  const pct = pull.total > 0 ? Math.min(100, (pull.completed / pull.total) * 100) : 0
  return (
    <div className="pull" data-testid="pull-progress">
      <div className="pull-head">
        <span>
          {pull.name}: {pull.error ? 'failed' : pull.done ? 'done' : pull.status}
        </span>
        {pull.done && (
          <button
            type="button"
            className="link"
            aria-label={`Dismiss ${pull.name}`}
            title="Dismiss"
            onClick={() => store.dismissPull(pull.name)}
          >
            ✕
          </button>
        )}
      </div>
      {!pull.done && (
        <>
          <progress max={100} value={pct} aria-label={`Pulling ${pull.name}`} />
          <div className="pull-figures">
            {formatBytes(pull.completed)} / {formatBytes(pull.total)}
            {pull.bytesPerSec > 0 && ` · ${formatBytes(pull.bytesPerSec)}/s`}
          </div>
        </>
      )}
      {pull.error && <div className="tool-error">{pull.error}</div>}
    </div>
  )
}
