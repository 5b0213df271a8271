import { memo, useState } from 'react'
import type { Decision } from '../backend'
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

/** A tool call: what it does, its state, and what it changed. */
export const ToolCard = memo(function ToolCard({
  card,
  onDecide,
}: {
  card: ToolCardModel
  onDecide?: (id: string, d: Decision) => void
}) {
  const [deciding, setDeciding] = useState(false)
  const summary = summarizeArgs(card)
  const decide = (d: Decision) => {
    setDeciding(true)
    onDecide?.(card.id, d)
  }
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
          <div className="approval-actions">
            <button type="button" className="primary" disabled={deciding} onClick={() => decide('allow')}>
              Approve
            </button>
            <button type="button" disabled={deciding} onClick={() => decide('deny')}>
              Deny
            </button>
          </div>
        </div>
      )}
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
