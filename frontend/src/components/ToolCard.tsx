import { memo, useEffect, useLayoutEffect, useRef, useState, type Ref } from 'react'
import type { Decision, NotRunReason, Preview } from '../backend'
import {
  alwaysAllowShortcut,
  approveShortcut,
  denyShortcut,
  denyWithReasonShortcut,
  type Shortcut,
} from '../keyboard/shortcuts'
import { focusIsIdle, modalDialogOpen } from '../keyboard/typing'
import type { ToolCard as ToolCardModel } from '../state/chatReducer'
import { jsonObject } from '../state/records'
import { asSentence } from '../state/sentence'
import { CommandCard } from './CommandCard'
import { DiffView } from './DiffView'
import { titleEnd, titleVerb, toolTitle } from './toolTitle'

export { DiffView }

/** The path a file tool's call is about, or '' for a call about no one path. */
export function callPath(card: Pick<ToolCardModel, 'args' | 'details'> & { name?: string }): string {
  if (card.name === 'search_files') return ''
  const a = jsonObject(card.args)
  const path = a?.path ?? a?.file ?? a?.dir ?? card.details?.path ?? (card.name === 'list_dir' && a ? '.' : undefined)
  return typeof path === 'string' ? path : ''
}

/** Whether a folder argument names the workspace itself: ".", "" or "./". */
function namesWorkspace(dir: string): boolean {
  return /^\.?\/?$/.test(dir)
}

/** A folder argument as a user reads it: "the workspace" for the workspace itself. */
function folderText(dir: unknown): string {
  return typeof dir !== 'string' || namesWorkspace(dir) ? 'the workspace' : dir
}

/**
 * One line saying what the call is about: the pattern and the folder of a search, the path
 * for file tools, else the arguments.
 */
export function summarizeArgs(card: Pick<ToolCardModel, 'args' | 'details'> & { name?: string }): string {
  const a = jsonObject(card.args)
  if (card.name === 'search_files' && a && typeof a.pattern === 'string') {
    const glob = typeof a.glob === 'string' && a.glob ? ` (${a.glob})` : ''
    return `“${a.pattern}” in ${folderText(a.path)}${glob}`
  }
  const path = callPath(card)
  if (path) return folderText(path)
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

/**
 * Why a call failed, as its card says it without being opened: the output's first line whole
 * (a tool's error is one sentence; only a very long one is cut, at a word), or a sentence
 * saying the tool gave no reason. The rest is under Output.
 */
export function errorSentence(output: string): string {
  const paragraph = (output.trim().split('\n')[0] ?? '').replace(/\s+/g, ' ').trim()
  if (!paragraph) return 'The tool failed without saying why.'
  if (paragraph.length <= 400) return asSentence(paragraph)
  const cut = paragraph.slice(0, 400)
  const space = cut.lastIndexOf(' ')
  return asSentence(`${space > 300 ? cut.slice(0, space) : cut}…`)
}

const notRunSentences: Record<NotRunReason, string> = {
  replied: 'Not run: you replied instead.',
  stopped: 'Not run: you stopped the run.',
  skipped: 'Not run: you sent a new message before its turn.',
  repeated: 'Not run: the model had just made this same call, so it was given that result again.',
  loop: 'Not run: the model kept repeating the same calls, so the run was stopped.',
  copied: 'Not run: the model copied this call from a file or tool output it had read. Text it reads is never run as a call.',
}

/** Why a call did not run, in the user's words. */
export function notRunSentence(card: Pick<ToolCardModel, 'notRun' | 'output'>): string {
  const known = notRunSentences[card.notRun as NotRunReason]
  if (known) return known
  const said = firstLine(card.output).replace(/^not run:\s*/i, '')
  return said ? `Not run: ${said}` : 'Not run.'
}

/** What the tool (or the run) said of a call the user stopped while it ran, in the user's words. */
export function stoppedSentence(output: string): string {
  const said = firstLine(output).replace(/^stopped:\s*/i, '')
  return said ? `Stopped while it ran: ${said}` : 'Stopped while it ran.'
}

/**
 * A path on one line that always shows its file name: when the line is too short, the folders
 * give way from their start ("…/components/ToolCard.tsx"). The whole path is the text (for
 * a screen reader, a search, a copy) and the tooltip.
 */
function PathText({ path }: { path: string }) {
  const cut = path.replace(/\/+$/, '').lastIndexOf('/')
  const dir = path.slice(0, cut + 1)
  const base = path.slice(cut + 1)
  return (
    <>
      {dir && (
        <span className="path-dir">
          <bdi dir="ltr">{dir}</bdi>
        </span>
      )}
      <span className="path-base" data-testid="path-base">
        {base}
      </span>
    </>
  )
}

export function StateBadge({ card }: { card: ToolCardModel }) {
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
    case 'not_run':
      return <span className="badge muted">not run</span>
    case 'stopped':
      return <span className="badge muted">stopped</span>
    case 'undone':
      return (
        <span className="badge muted undone" title="An undo took this change back; Redo brings it back">
          ↶ undone
        </span>
      )
    default:
      // A state this version does not know: said as it is rather than left blank.
      return <span className="badge muted">{String(card.state)}</span>
  }
}

export function bytesText(n: number): string {
  if (n < 1024) return `${n} ${n === 1 ? 'byte' : 'bytes'}`
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`
  return `${(n / 1024 / 1024).toFixed(1)} MiB`
}

/** The change a waiting call would make: the diff of a write, or what a delete removes. */
export function PreviewView({ preview }: { preview: Preview }) {
  const removes = preview.removes ?? []
  return (
    <div className="preview" data-testid="preview">
      {removes.length > 0 ? (
        <>
          <div className="preview-title">
            Will delete {removes.length === 1 ? removes[0].path : `${removes.length} files and folders`} ({bytesText(preview.bytes)})
          </div>
          <ul className="preview-removes">
            {removes.slice(0, 50).map((r) => (
              <li key={r.path}>
                {r.path}
                {r.kind === 'dir' ? '/' : ''} <span className="muted small">{r.kind === 'file' ? bytesText(r.bytes ?? 0) : r.kind}</span>
              </li>
            ))}
            {removes.length > 50 && <li className="muted">… and {removes.length - 50} more</li>}
          </ul>
        </>
      ) : (
        <div className="preview-title">
          {preview.created
            ? `Will create ${preview.path} (${bytesText(preview.bytes)})`
            : preview.unchanged
              ? `Nothing changes: the content is the same as ${preview.path}’s`
              : `Will edit ${preview.path} (${bytesText(preview.bytes)} after the edit)`}
        </div>
      )}
      {preview.diff ? <DiffView diff={preview.diff} open path={preview.path} /> : null}
      {(preview.notUndoable ?? []).map((p) => (
        <div key={p} className="tool-error" role="note">
          {p} is too large to keep: this change cannot be undone.
        </div>
      ))}
    </div>
  )
}

/** Focuses the composer (where the user goes on typing) when nothing else has the focus. */
function focusComposerIfLost() {
  setTimeout(() => {
    const active = document.activeElement
    if (!active || active === document.body) document.getElementById('composer')?.focus()
  }, 0)
}

export function ShortcutKey({ shortcut }: { shortcut: Shortcut }) {
  // Hidden from the accessible name ("Approve"); aria-keyshortcuts tells it instead.
  return (
    <kbd className="shortcut" aria-hidden="true">
      {shortcut.label}
    </kbd>
  )
}

/**
 * The decisions on a call that waits for the user: Approve, Deny, "Deny and tell the model why"
 * (a field whose text the model reads as the result) and "Always allow this tool in this
 * workspace". On the card the keyboard shortcuts apply to (the oldest one waiting), the buttons
 * show their keys and Approve takes the focus when nothing useful has it (never from a field). A spent decision
 * leaves the buttons inert but focusable, so that the focus is not lost while the call starts;
 * when they go, the focus returns to the composer.
 */
export function ApprovalActions({
  onDecide,
  onAllowAlways,
  alwaysLabel = 'Always allow here',
  onAskReason,
  askingReason,
  decided,
  current,
  restored,
}: {
  onDecide: (d: Decision, reason?: string) => void
  onAllowAlways?: () => void
  /** The name of the "Always allow" button. */
  alwaysLabel?: string
  onAskReason?: (open: boolean) => void
  askingReason: boolean
  decided?: Decision
  current: boolean
  restored: boolean
}) {
  const approve = useRef<HTMLButtonElement>(null)
  const actions = useRef<HTMLDivElement>(null)
  const [reason, setReason] = useState('')

  useEffect(() => {
    // A call found waiting in a chat opened from the store (at start, or picked in the list)
    // leaves the focus where the user is: only a call that starts waiting now takes it, and only
    // from nowhere (never from the composer or another field, where the next key is the user's
    // text, not a decision; Alt+A approves from there, and the window's status line says so).
    if (current && !decided && !restored && !askingReason && focusIsIdle() && !modalDialogOpen()) approve.current?.focus()
  }, [current, decided, restored, askingReason])

  useLayoutEffect(() => {
    const el = actions.current
    return () => {
      if (el?.contains(document.activeElement)) focusComposerIfLost()
    }
  }, [])

  const button = (label: string, shortcut: Shortcut, onClick: () => void, primary = false, ref?: Ref<HTMLButtonElement>, decision?: string) => (
    <button
      type="button"
      ref={ref}
      className={primary ? 'primary' : undefined}
      aria-disabled={decided ? true : undefined}
      aria-keyshortcuts={current ? shortcut.label : undefined}
      title={current ? `${label} (${shortcut.label})` : label}
      data-decision={decision}
      onClick={() => {
        if (!decided) onClick()
      }}
    >
      {label}
      {current && <ShortcutKey shortcut={shortcut} />}
    </button>
  )
  return (
    <div className="approval-actions" ref={actions}>
      {button('Approve', approveShortcut, () => onDecide('allow'), true, approve, 'allow')}
      {button('Deny', denyShortcut, () => onDecide('deny'), false, undefined, 'deny')}
      {onAskReason && button('Deny and tell why…', denyWithReasonShortcut, () => onAskReason(true))}
      {onAllowAlways && button(alwaysLabel, alwaysAllowShortcut, onAllowAlways)}
      {askingReason && !decided && (
        <form
          className="deny-reason"
          onSubmit={(e) => {
            e.preventDefault()
            onDecide('deny', reason.trim())
          }}
        >
          <input
            autoFocus
            // opened below the card's buttons, it comes into sight as it takes the focus
            ref={(field) => field?.scrollIntoView?.({ block: 'nearest' })}
            aria-label="Why the call is denied (the model reads it)"
            placeholder="Why not? The model reads this."
            value={reason}
            onChange={(e) => setReason(e.target.value)}
            onKeyDown={(e) => {
              if (e.key === 'Escape') {
                e.preventDefault() // closes the field; it does not stop a run
                onAskReason?.(false)
              }
            }}
          />
          <button type="submit" disabled={!reason.trim()}>
            Deny with this reason
          </button>
        </form>
      )}
      {decided && (
        <span className="muted small" role="status">
          {decided === 'allow' ? 'Approved; starting…' : 'Denied.'}
        </span>
      )}
    </div>
  )
}

/** Open and Show in folder, on the card of a file the call wrote. */
function FileActions({ path, onOpen }: { path: string; onOpen: (inFolder: boolean) => void }) {
  const what = folderText(path)
  return (
    <div className="file-actions">
      <button type="button" className="link" onClick={() => onOpen(false)} aria-label={`Open ${what}`}>
        Open
      </button>
      <button type="button" className="link" onClick={() => onOpen(true)} aria-label={`Show ${what} in its folder`}>
        Show in folder
      </button>
    </div>
  )
}

/** What a running tool last said of its progress (an MCP server's progress notification). */
/** The sentence of a card that did not complete: why it failed, was not run, stopped, was
 * denied or was cut off with its run; nothing for any other state. `what` names the card in
 * the last case ("call", "command"). */
export function OutcomeSentence({ card, what }: { card: ToolCardModel; what: string }) {
  switch (card.state) {
    case 'failed':
      return (
        <div className="tool-error" data-testid="tool-error">
          {errorSentence(card.output)}
        </div>
      )
    case 'not_run':
      return (
        <div className="tool-note" data-testid="not-run-reason">
          {notRunSentence(card)}
        </div>
      )
    case 'stopped':
      return (
        <div className="tool-note" data-testid="stopped-sentence">
          {stoppedSentence(card.output)}
        </div>
      )
    case 'denied':
      return (
        <div className="tool-note">
          Denied{card.approval?.by ? ` by ${card.approval.by}` : ''}
          {card.approval?.reason ? `: ${card.approval.reason}` : '.'}
        </div>
      )
    case 'interrupted':
      return <div className="tool-note">The run ended before this {what} finished.</div>
    default:
      return null
  }
}

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

/** Why the waiting call cannot succeed as it is, when its preview found that it cannot. */
export function PreviewFails({ card }: { card: ToolCardModel }) {
  if (!card.preview?.fails) return null
  return (
    <div className="tool-error" role="note" data-testid="preview-fails">
      This call cannot succeed as it is: {card.preview.fails}
    </div>
  )
}

/**
 * What a card's decisions are bound to: the window's answers to a waiting call, given its id.
 * `current` marks the card the approval shortcuts apply to; `decided` is the answer the window
 * already sent for it.
 */
export interface CardDecisionProps {
  onDecide?: (id: string, d: Decision, reason?: string) => void
  onAllowAlways?: (id: string) => void
  onAskReason?: (id: string | null) => void
  askingReason?: boolean
  decided?: Decision
  current?: boolean
}

/** The decisions on a waiting card's call: ApprovalActions with the card's id given to each answer. */
export function CardApprovalActions({
  card,
  onDecide,
  onAllowAlways,
  alwaysLabel,
  onAskReason,
  askingReason = false,
  decided,
  current = false,
}: CardDecisionProps & { card: ToolCardModel; alwaysLabel?: string }) {
  return (
    <ApprovalActions
      onDecide={(d, reason) => (reason === undefined ? onDecide?.(card.id, d) : onDecide?.(card.id, d, reason))}
      onAllowAlways={onAllowAlways ? () => onAllowAlways(card.id) : undefined}
      alwaysLabel={alwaysLabel}
      onAskReason={onAskReason ? (open) => onAskReason(open ? card.id : null) : undefined}
      askingReason={askingReason}
      decided={decided}
      current={current}
      restored={!!card.restored}
    />
  )
}

/** A tool call: what it does, its state, and what it changed; its decisions as CardDecisionProps says. */
export const ToolCard = memo(function ToolCard({
  card,
  onOpen,
  ...decisions
}: CardDecisionProps & {
  card: ToolCardModel
  /** Opens the card's path (or, inFolder, its folder) in the folder the call wrote it in. */
  onOpen?: (path: string, inFolder: boolean, toolCallId: string) => void
}) {
  if (card.name === 'run_command') {
    return (
      <CommandCard card={card} {...decisions} />
    )
  }
  const summary = summarizeArgs(card)
  const path = namesWorkspace(callPath(card)) ? '' : callPath(card) // the workspace itself reads as words, not "."
  const diff = card.details?.diff
  // the path a completed call wrote or read, which Open and Show in folder open
  const opens = card.state === 'completed' && card.name !== 'delete_path' && card.name !== 'search_files' ? card.details?.path : undefined
  const verb = titleVerb(card)
  const title = toolTitle(card, path || summary)
  return (
    <div
      className={`tool-card state-${card.state}`}
      data-testid="tool-card"
      data-tool-call-id={card.id}
      data-tool-state={card.state}
      data-tool-name={card.name}
      role="group"
      aria-label={card.state === 'undone' ? `${title}, undone` : title}
      aria-description={card.state === 'undone' ? 'An undo took this change back.' : undefined}
    >
      <div className="tool-head">
        <span className="tool-title" data-testid="tool-title">
          <span className={verb ? 'tool-verb' : 'tool-name'}>{verb || card.name || 'tool'}</span>{' '}
          <span className={path ? 'tool-args tool-path' : 'tool-args'} title={summary} data-testid="tool-subject">
            {path ? <PathText path={path} /> : summary}
          </span>
          {titleEnd(card)}
        </span>
        {verb && (
          <span className="tool-fn muted small" title="The tool the model called">
            {card.name}
          </span>
        )}
        {card.recovered && (
          <span
            className="badge info"
            data-testid="recovered-badge"
            title="The model wrote this call as text in its answer instead of calling the tool."
          >
            Written as text by the model
          </span>
        )}
        <StateBadge card={card} />
      </div>
      {card.state === 'awaiting_approval' && (
        <div className="approval">
          {card.preview && !card.preview.fails ? (
            <PreviewView preview={card.preview} />
          ) : (
            <pre className="tool-args-full">{JSON.stringify(jsonObject(card.args) ?? card.args, null, 2)}</pre>
          )}
          {card.recovered && (
            <div className="tool-note" role="note" data-testid="written-as-text">
              The model wrote this call as text in its answer, not as a tool call: approve it only if it is what you asked for.
            </div>
          )}
          {card.preview?.command?.keepsRunning && (
            <div className="tool-note" role="note" data-testid="keeps-running">
              This server keeps running after the run, in a sandbox with no network but its own, until you stop it in the
              Preview pane (Alt+P); files it writes are not kept.
            </div>
          )}
          <PreviewFails card={card} />
          <CardApprovalActions card={card} {...decisions} />
        </div>
      )}
      {card.state === 'running' && <ProgressLine progress={card.progress} />}
      <OutcomeSentence card={card} what="call" />
      {(card.notUndoable ?? []).map((p) => (
        <div key={p} className="tool-note" role="note">
          {p} was too large to keep: this change cannot be undone.
        </div>
      ))}
      {onOpen && opens && <FileActions path={opens} onOpen={(inFolder) => onOpen(opens, inFolder, card.id)} />}
      {diff ? <DiffView diff={diff} path={card.details?.path ?? path} /> : null}
      {/* a stopped call's output is folded only when it says more than its sentence */}
      {!diff &&
        card.output &&
        (card.state === 'completed' || card.state === 'undone' || card.state === 'failed' || (card.state === 'stopped' && card.output.trim().includes('\n'))) && (
        <details className="tool-output">
          <summary>Output</summary>
          <pre>{card.output}</pre>
        </details>
      )}
    </div>
  )
})
