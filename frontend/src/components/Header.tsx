import { useEffect, useRef, useState, type KeyboardEvent } from 'react'
import type { ModelInfo } from '../backend'
import { isBusy } from '../state/chatReducer'
import type { PullState } from '../state/store'
import { useAppState, useStore } from '../state/useAppState'
import { FolderIcon, GearIcon } from './icons'

export function formatBytes(n: number): string {
  if (!n) return '0 B'
  const units = ['B', 'KB', 'MB', 'GB', 'TB']
  const i = Math.min(units.length - 1, Math.floor(Math.log(n) / Math.log(1000)))
  return `${(n / 1000 ** i).toFixed(i >= 3 ? 1 : 0)} ${units[i]}`
}

function baseName(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean)
  return parts[parts.length - 1] ?? path
}

export function ModelBadges({ model }: { model: ModelInfo }) {
  return (
    <span className="badges">
      {model.tools ? <span className="badge ok">tools</span> : <span className="badge err">no tools</span>}
      {model.thinking && <span className="badge info">thinking</span>}
      {model.vision && <span className="badge info">vision</span>}
      {model.contextLength > 0 && (
        <span className="badge muted">{Math.round(model.contextLength / 1024)}K ctx</span>
      )}
    </span>
  )
}

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

/** The model in use, the server's models with their capabilities, and pulling a new one. */
export function ModelPicker() {
  const store = useStore()
  const models = useAppState((s) => s.models)
  const current = useAppState((s) => s.config?.model ?? '')
  const pulls = useAppState((s) => s.pulls)
  const [open, setOpen] = useState(false)
  const [pullName, setPullName] = useState('')
  const root = useRef<HTMLDivElement>(null)
  const info = models.find((m) => m.name === current)

  useEffect(() => {
    if (!open) return
    const close = (e: MouseEvent) => {
      if (!root.current?.contains(e.target as Node)) setOpen(false)
    }
    document.addEventListener('mousedown', close)
    return () => document.removeEventListener('mousedown', close)
  }, [open])

  const button = useRef<HTMLButtonElement>(null)
  // Esc closes the list and gives the focus back to its button.
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'Escape' && open) {
      e.stopPropagation()
      setOpen(false)
      button.current?.focus()
    }
  }

  const pullList = Object.values(pulls)
  return (
    <div className="model-picker" ref={root} onKeyDown={onKeyDown}>
      <button
        type="button"
        ref={button}
        className="header-button"
        data-testid="model-button"
        aria-haspopup="listbox"
        aria-expanded={open}
        title="The model of the next message"
        onClick={() => setOpen(!open)}
      >
        {current || 'Pick a model'} {info && <ModelBadges model={info} />} <span aria-hidden="true">▾</span>
      </button>
      {pullList.length > 0 && !open && <span className="pull-mini">{pullList.length} pulling…</span>}
      {open && (
        <div className="popover" role="listbox" aria-label="Models">
          {models.length === 0 && <div className="muted pad">No models on the server yet. Pull one below.</div>}
          {models.map((m) => (
            <button
              type="button"
              role="option"
              aria-selected={m.name === current}
              key={m.name}
              className={`model-option${m.name === current ? ' selected' : ''}`}
              onClick={() => {
                void store.setModel(m.name)
                setOpen(false)
              }}
            >
              <span className="model-name">{m.name}</span>
              <span className="muted">
                {m.parameterSize} {formatBytes(m.size)}
              </span>
              <ModelBadges model={m} />
            </button>
          ))}
          <form
            className="pull-form"
            onSubmit={(e) => {
              e.preventDefault()
              void store.pullModel(pullName)
              setPullName('')
            }}
          >
            <input
              placeholder="Pull a model, e.g. qwen3:4b"
              aria-label="Model to pull"
              value={pullName}
              onChange={(e) => setPullName(e.target.value)}
            />
            <button type="submit" disabled={!pullName.trim()}>
              Pull
            </button>
          </form>
          {pullList.map((p) => (
            <PullBar key={p.name} pull={p} />
          ))}
        </div>
      )}
    </div>
  )
}

const phaseLabels: Record<string, string> = {
  submitted: 'Sending…',
  streaming: 'Answering…',
  tools: 'Running tools…',
  continuing: 'Reading the results…',
  awaiting_approval: 'Waiting for your approval',
}

/** The bar above the chat: workspace, model, run state, settings. */
export function Header({ onSettings }: { onSettings: () => void }) {
  const store = useStore()
  const workspace = useAppState((s) => s.config?.workspace ?? '')
  const phase = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId]?.phase : undefined) ?? 'idle')
  return (
    <header className="chat-header">
      <button
        type="button"
        className="header-button workspace"
        data-testid="workspace-button"
        title={workspace || 'Pick the folder Prototyper works in'}
        onClick={() => void store.pickWorkspace()}
      >
        <FolderIcon /> {workspace ? baseName(workspace) : 'Pick a workspace…'}
      </button>
      <ModelPicker />
      <span className="spacer" />
      {phase !== 'idle' && (
        <span className={`run-state${isBusy(phase) ? ' busy' : ''}`} data-testid="run-state" data-phase={phase}>
          {isBusy(phase) && <span className="spinner" aria-hidden="true" />} {phaseLabels[phase]}
        </span>
      )}
      <button type="button" className="header-button" aria-label="Settings" title="Settings" onClick={onSettings}>
        <GearIcon />
      </button>
    </header>
  )
}
