import { useEffect, useState } from 'react'
import { errorText, type ApprovalPolicy, type Config, type ThinkLevel } from '../backend'
import { useStore } from '../state/useAppState'

const thinkLevels: ThinkLevel[] = ['off', 'on', 'low', 'medium', 'high']
const policies: ApprovalPolicy[] = ['auto', 'ask', 'deny']

/** Ollama URL, think level, context cap and the approval policy of each tool. */
export function SettingsPanel({ config, onClose }: { config: Config; onClose: () => void }) {
  const store = useStore()
  const [url, setUrl] = useState(config.ollamaUrl)
  const [think, setThink] = useState<ThinkLevel>(config.think)
  const [cap, setCap] = useState(String(config.contextCap || ''))
  const [firstByte, setFirstByte] = useState(String(config.firstByteTimeoutSec || ''))
  const [approval, setApproval] = useState<Record<string, ApprovalPolicy>>({ ...config.toolApproval })
  const [keepAlive, setKeepAlive] = useState(String(config.keepAliveMin || ''))
  const [loopRepeats, setLoopRepeats] = useState(String(config.loopRepeats || ''))
  const [textCalls, setTextCalls] = useState(!config.ignoreTextToolCalls)
  const [instructions, setInstructions] = useState(config.instructions ?? '')
  const [error, setError] = useState('')
  const [saving, setSaving] = useState(false)

  // The focus goes back where it was (the Settings button) when the dialog closes. Read while
  // rendering: by the time effects run, the first field has taken the focus.
  const [opener] = useState(() => document.activeElement)
  useEffect(
    () => () => {
      if (opener instanceof HTMLElement && opener.isConnected) opener.focus()
    },
    [opener],
  )

  const save = async () => {
    setSaving(true)
    setError('')
    try {
      await store.saveSettings({
        workspace: config.workspace,
        model: config.model,
        ollamaUrl: url.trim(),
        think,
        contextCap: Number(cap) || 0,
        firstByteTimeoutSec: Number(firstByte) || 0,
        toolApproval: approval,
        keepAliveMin: Number(keepAlive) || 0,
        loopRepeats: Number(loopRepeats) || 0,
        ignoreTextToolCalls: !textCalls,
        instructions,
      })
      onClose()
    } catch (err) {
      setError(errorText(err))
    } finally {
      setSaving(false)
    }
  }

  const tools = Array.from(new Set([...(config.tools ?? []), ...Object.keys(config.toolApproval ?? {})])).sort()
  return (
    // A click beside the dialog closes it, as Esc and Cancel do (the backdrop is no control).
    <div role="presentation" className="modal-backdrop" onMouseDown={(e) => e.target === e.currentTarget && onClose()}>
      <form
        className="modal"
        role="dialog"
        aria-modal="true"
        aria-label="Settings"
        onSubmit={(e) => {
          e.preventDefault()
          void save()
        }}
        onKeyDown={(e) => e.key === 'Escape' && onClose()}
      >
        <h2>Settings</h2>
        <label>
          Ollama URL
          <input autoFocus value={url} onChange={(e) => setUrl(e.target.value)} placeholder="http://127.0.0.1:11434" />
        </label>
        <label>
          Thinking
          <select value={think} onChange={(e) => setThink(e.target.value as ThinkLevel)}>
            {thinkLevels.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </label>
        <label>
          Context cap (tokens, 0 = the model's own)
          <input type="number" min={0} step={1024} value={cap} onChange={(e) => setCap(e.target.value)} />
        </label>
        <label>
          Wait for a model to start answering (seconds, 0 = the default)
          <input type="number" min={0} step={30} value={firstByte} onChange={(e) => setFirstByte(e.target.value)} />
        </label>
        <label>
          Keep a model loaded after each message (minutes, 0 = 30, -1 = as long as Ollama runs)
          <input type="number" min={-1} step={5} value={keepAlive} onChange={(e) => setKeepAlive(e.target.value)} />
        </label>
        <label>
          Stop a run when the model repeats the same call (times in a row)
          <input type="number" min={2} step={1} value={loopRepeats} onChange={(e) => setLoopRepeats(e.target.value)} />
        </label>
        <label className="inline">
          <input type="checkbox" checked={textCalls} onChange={(e) => setTextCalls(e.target.checked)} />
          Run tool calls a model writes as text (marked “written as text”)
        </label>
        {config.workspace && (
          <label>
            Instructions for the model in {config.workspace} (sent with every message, after its AGENTS.md)
            <textarea rows={3} value={instructions} onChange={(e) => setInstructions(e.target.value)} />
          </label>
        )}
        <fieldset>
          <legend>Tool approval</legend>
          {tools.length === 0 && <div className="muted">No tools registered.</div>}
          {tools.map((t) => (
            <label key={t} className="inline">
              <span className="tool-name">{t}</span>
              <select
                aria-label={`Approval for ${t}`}
                value={approval[t] ?? 'auto'}
                onChange={(e) => setApproval({ ...approval, [t]: e.target.value as ApprovalPolicy })}
              >
                {policies.map((p) => (
                  <option key={p} value={p}>
                    {p === 'auto' ? 'run without asking' : p === 'ask' ? 'ask me' : 'never run'}
                  </option>
                ))}
              </select>
            </label>
          ))}
        </fieldset>
        {config.dbPath && <div className="muted small">Chats are stored in {config.dbPath}</div>}
        {error && <div className="tool-error">{error}</div>}
        <div className="row end">
          <button type="button" onClick={onClose}>
            Cancel
          </button>
          <button type="submit" className="primary" disabled={saving}>
            Save
          </button>
        </div>
      </form>
    </div>
  )
}
