import { memo, useEffect, useLayoutEffect, useRef } from 'react'
import type { Decision } from '../backend'
import { approveShortcut, denyShortcut, type Shortcut } from '../keyboard/shortcuts'
import { modalDialogOpen, userIsTyping } from '../keyboard/typing'
import type { ToolCard as ToolCardModel } from '../state/chatReducer'

/** Arguments as an object, whether they arrived parsed or as JSON text. */
export function argsObject(args: unknown): Record<string, unknown> | null {
  let a = args
  if (typeof a === 'string') {
    try {
      a = JSON.parse(a)
    } catch {
      return null
    }
  }
  return a && typeof a === 'object' && !Array.isArray(a) ? (a as Record<string, unknown>) : null
}

/** One line saying what the call is about: the path for file tools, else the arguments. */
export function summarizeArgs(card: Pick<ToolCardModel, 'args' | 'details'>): string {
  const a = argsObject(card.args)
  const path = a?.path ?? a?.file ?? a?.dir ?? card.details?.path
  if (typeof path === 'string' && path) return path
  if (!a) return typeof card.args === 'string' ? card.args : ''
  const text = Object.entries(a)
    .map(([k, v]) => `${k}: ${typeof v === 'string' ? v : JSON.stringify(v)}`)
    .join(', ')
  return text.length > 120 ? `${text.slice(0, 117)}…` : text
}

export function formatDuration(ms: number | null): string {
  if (ms === null) return ''
  if (ms < 1000) return `${Math.round(ms)} ms`
  return `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`
}

function firstLine(s: string): string {
  const line = s.trim().split('\n')[0] ?? ''
  return line.length > 200 ? `${line.slice(0, 197)}…` : line
}

function StateBadge({ card }: { card: ToolCardModel }) {
  switch (card.state) {
    case 'pending':
      return <span className="badge muted">queued</span>
    case 'running':
      return (
        <span className="badge running">
          <span className="spinner" aria-hidden="true" /> running
        </span>
      )
    case 'awaiting_approval':
      return <span className="badge warn">awaiting approval</span>
    case 'completed':
      return <span className="badge ok">✓ {formatDuration(card.durationMs)}</span>
    case 'failed':
      return <span className="badge err">✗ failed</span>
    case 'denied':
      return <span className="badge err">denied</span>
    case 'interrupted':
      return <span className="badge muted">interrupted</span>
    default:
      // A state this version does not know: said as it is rather than left blank.
      return <span className="badge muted">{String(card.state)}</span>
  }
}

function DiffView({ diff }: { diff: string }) {
  const lines = diff.split('\n')
  const added = lines.filter((l) => l.startsWith('+') && !l.startsWith('+++')).length
  const removed = lines.filter((l) => l.startsWith('-') && !l.startsWith('---')).length
  return (
    <details className="diff">
      <summary>
        Diff <span className="add">+{added}</span> <span className="del">−{removed}</span>
      </summary>
      <pre>
        {lines.map((l, i) => (
          <div
            key={i}
            className={
              l.startsWith('+') && !l.startsWith('+++')
                ? 'add'
                : l.startsWith('-') && !l.startsWith('---')
                  ? 'del'
                  : l.startsWith('@@')
                    ? 'hunk'
                    : undefined
            }
          >
            {l || ' '}
          </div>
        ))}
      </pre>
    </details>
  )
}

/** Focuses the composer (where the user goes on typing) when nothing else has the focus. */
function focusComposerIfLost() {
  setTimeout(() => {
    const active = document.activeElement
    if (!active || active === document.body) document.getElementById('composer')?.focus()
  }, 0)
}

function ShortcutKey({ shortcut }: { shortcut: Shortcut }) {
  // Hidden from the accessible name ("Approve"); aria-keyshortcuts tells it instead.
  return (
    <kbd className="shortcut" aria-hidden="true">
      {shortcut.label}
    </kbd>
  )
}

/**
 * Approve and Deny of a call that waits for the user. On the card the keyboard shortcuts apply
 * to (the oldest one waiting), the buttons show their keys and Approve takes the focus, unless
 * the user is typing. A spent decision leaves the buttons inert but focusable, so that the focus
 * is not lost while the call starts; when they go, the focus returns to the composer.
 */
function ApprovalActions({
  onDecide,
  decided,
  current,
  restored,
}: {
  onDecide: (d: Decision) => void
  decided?: Decision
  current: boolean
  restored: boolean
}) {
  const approve = useRef<HTMLButtonElement>(null)
  const actions = useRef<HTMLDivElement>(null)

  useEffect(() => {
    // A call found waiting in a chat opened from the store (at start, or picked in the list)
    // leaves the focus where the user is: only a call that starts waiting now takes it.
    if (current && !decided && !restored && !userIsTyping() && !modalDialogOpen()) approve.current?.focus()
  }, [current, decided, restored])

  useLayoutEffect(() => {
    const el = actions.current
    return () => {
      if (el?.contains(document.activeElement)) focusComposerIfLost()
    }
  }, [])

  const button = (d: Decision, label: string, shortcut: Shortcut, primary: boolean) => (
    <button
      type="button"
      ref={d === 'allow' ? approve : undefined}
      className={primary ? 'primary' : undefined}
      aria-disabled={decided ? true : undefined}
      aria-keyshortcuts={current ? shortcut.label : undefined}
      title={current ? `${label} (${shortcut.label})` : label}
      data-decision={d}
      onClick={() => {
        if (!decided) onDecide(d)
      }}
    >
      {label}
      {current && <ShortcutKey shortcut={shortcut} />}
    </button>
  )
  return (
    <div className="approval-actions" ref={actions}>
      {button('allow', 'Approve', approveShortcut, true)}
      {button('deny', 'Deny', denyShortcut, false)}
      {decided && (
        <span className="muted small" role="status">
          {decided === 'allow' ? 'Approved; starting…' : 'Denied.'}
        </span>
      )}
    </div>
  )
}

/** What a running tool last said of its progress (an MCP server's progress notification). */
export function progressText(p: unknown): string {
  if (!p || typeof p !== 'object') return ''
  const { progress, total, message } = p as { progress?: unknown; total?: unknown; message?: unknown }
  const parts: string[] = []
  if (typeof message === 'string' && message) parts.push(message)
  if (typeof progress === 'number') parts.push(typeof total === 'number' && total > 0 ? `${progress}/${total}` : `${progress}`)
  return parts.join(' · ')
}

function ProgressLine({ progress }: { progress: unknown }) {
  const text = progressText(progress)
  if (!text) return null
  return (
    <div className="tool-note muted small" role="status">
      {text}
    </div>
  )
}

/**
 * A tool call: what it does, its state, and what it changed. `current` marks the card the
 * approval shortcuts apply to; `decided` is the answer the window already sent for it.
 */
export const ToolCard = memo(function ToolCard({
  card,
  onDecide,
  decided,
  current = false,
}: {
  card: ToolCardModel
  onDecide?: (id: string, d: Decision) => void
  decided?: Decision
  current?: boolean
}) {
  const summary = summarizeArgs(card)
  const diff = card.details?.diff
  return (
    <div
      className={`tool-card state-${card.state}`}
      data-testid="tool-card"
      data-tool-call-id={card.id}
      data-tool-state={card.state}
      data-tool-name={card.name}
    >
      <div className="tool-head">
        <span className="tool-name">{card.name || 'tool'}</span>
        <span className="tool-args" title={summary}>
          {summary}
        </span>
        <StateBadge card={card} />
      </div>
      {card.state === 'awaiting_approval' && (
        <div className="approval">
          <pre className="tool-args-full">{JSON.stringify(argsObject(card.args) ?? card.args, null, 2)}</pre>
          <ApprovalActions
            onDecide={(d) => onDecide?.(card.id, d)}
            decided={decided}
            current={current}
            restored={!!card.restored}
          />
        </div>
      )}
      {card.state === 'running' && <ProgressLine progress={card.progress} />}
      {card.state === 'failed' && card.output && <div className="tool-error">{firstLine(card.output)}</div>}
      {card.state === 'denied' && (
        <div className="tool-note">
          Denied{card.approval?.by ? ` by ${card.approval.by}` : ''}
          {card.approval?.reason ? `: ${card.approval.reason}` : '.'}
        </div>
      )}
      {card.state === 'interrupted' && <div className="tool-note">The run ended before this call finished.</div>}
      {diff ? <DiffView diff={diff} /> : null}
      {!diff && card.output && (card.state === 'completed' || card.state === 'failed') && (
        <details className="tool-output">
          <summary>Output</summary>
          <pre>{card.output}</pre>
        </details>
      )}
    </div>
  )
})
