import { Fragment, useLayoutEffect, useRef, useState } from 'react'
import type { CommandChange, CommandDetails, Decision } from '../backend'
import { networkShortcut } from '../keyboard/shortcuts'
import { emptyOutput, type CommandOutput } from '../state/commandOutput'
import type { ToolCard as ToolCardModel } from '../state/chatReducer'
import { jsonObject } from '../state/records'
import { suggestedPattern } from '../state/store'
import { useAppState, useStore } from '../state/useAppState'
import { visibleChars } from '../state/visibleText'
import {
  bytesText,
  CardApprovalActions,
  type CardDecisionProps,
  DiffView,
  formatDuration,
  OutcomeSentence,
  PreviewFails,
  ShortcutKey,
  StateBadge,
} from './ToolCard'

/** The command line of a run_command call, and its folder ('' for the workspace's root). */
export function commandOf(card: Pick<ToolCardModel, 'args' | 'preview'>): { command: string; cwd: string } {
  const a = jsonObject(card.args)
  const command = typeof a?.command === 'string' ? a.command : (card.preview?.command?.command ?? '')
  const dir = typeof a?.cwd === 'string' ? a.cwd : (card.preview?.command?.cwd ?? '')
  return { command, cwd: /^\.?\/?$/.test(dir) ? '' : dir }
}

/**
 * A command as a title or the window's status says it: its first line, not too long, its
 * invisible characters marked (the whole line is on the card).
 */
export function shortCommand(command: string): string {
  const line = visibleChars(command.trim().split('\n')[0] ?? '')
  const more = line.length > 80 || command.trim().includes('\n')
  return more ? `${line.slice(0, 77)}…` : line
}

// What of a command line to approve is shown before the user asks for the rest: enough to
// read at a glance, never more than fits without scrolling (nothing hidden below).
const shownLines = 8
const shownChars = 1000

/**
 * A command line to approve, all of it in view: invisible and bidirectional characters marked,
 * each newline shown as ⏎, and past a few lines or characters a button saying how much more
 * there is, which shows it.
 */
function CommandLineView({ command }: { command: string }) {
  const [all, setAll] = useState(false)
  const lines = command.split('\n')
  let shown = lines
  if (!all) {
    shown = lines.slice(0, shownLines)
    let chars = 0
    for (let i = 0; i < shown.length; i++) {
      if (chars + shown[i]!.length > shownChars) {
        shown = [...shown.slice(0, i), shown[i]!.slice(0, shownChars - chars)]
        break
      }
      chars += shown[i]!.length + 1
    }
  }
  const moreLines = lines.length - shown.length
  const moreChars = moreLines === 0 ? lines[shown.length - 1]!.length - shown[shown.length - 1]!.length : 0
  const more = moreLines > 0 ? (moreLines === 1 ? '1 more line' : `${moreLines.toLocaleString('en')} more lines`) : `${moreChars.toLocaleString('en')} more characters`
  return (
    <>
      <pre className={all ? 'command-line all' : 'command-line'} aria-label="Command line" tabIndex={0}>
        <code>
          {shown.map((line, i) => (
            <Fragment key={i}>
              {visibleChars(line)}
              {i < lines.length - 1 && i < shown.length - 1 && <span className="newline-mark">{'⏎\n'}</span>}
            </Fragment>
          ))}
          {(moreLines > 0 || moreChars > 0) && <span className="newline-mark">{moreLines > 0 ? '⏎' : '…'}</span>}
        </code>
      </pre>
      {(moreLines > 0 || moreChars > 0) && (
        <button type="button" className="command-more" onClick={() => setAll(true)}>
          Show the rest of the command: {more}
        </button>
      )}
    </>
  )
}

/** What happened to the command, as its card is titled: "Running npm test…", "Ran npm test". */
export function commandTitle(card: Pick<ToolCardModel, 'state' | 'args' | 'preview'>): string {
  const cmd = shortCommand(commandOf(card).command) || 'a command'
  switch (card.state) {
    case 'running':
      return `Running ${cmd}…`
    case 'awaiting_approval':
      return `Run ${cmd}?`
    case 'pending':
      return `Will run ${cmd}`
    case 'completed':
    case 'undone':
    case 'stopped':
    case 'interrupted':
      return `Ran ${cmd}`
    case 'failed':
      return `Could not run ${cmd}`
    default:
      return `Did not run ${cmd}`
  }
}

/** How a command ended, in a word or two: "exit 0", "exit 1", "timed out", "stopped". */
export function exitStatus(card: Pick<ToolCardModel, 'state' | 'details'>): string {
  if (card.state === 'stopped') return 'stopped'
  const d = card.details?.command
  if (!d) return ''
  return d.timedOut ? 'timed out' : `exit ${d.exitCode}`
}

function CommandBadge({ card }: { card: ToolCardModel }) {
  const status = exitStatus(card)
  if (card.state === 'completed' && status) {
    const ok = status === 'exit 0'
    return <span className={`badge ${ok ? 'ok' : 'err'}`} data-testid="exit-status">{ok ? `✓ ${status}` : `✗ ${status}`}</span>
  }
  if (card.state === 'stopped') return <span className="badge muted" data-testid="exit-status">stopped</span>
  return <StateBadge card={card} />
}

/**
 * What a command printed, stdout and stderr in the order they came (stderr marked), in one
 * block that follows the end as text arrives unless the user scrolled up to read; the part cut
 * between the head and the tail is said where it was.
 */
function OutputLog({ output, label }: { output: CommandOutput; label: string }) {
  const log = useRef<HTMLPreElement>(null)
  const following = useRef(true)
  useLayoutEffect(() => {
    const el = log.current
    if (el && following.current) el.scrollTop = el.scrollHeight
  }, [output])
  const chunk = (prefix: string) => (c: CommandOutput['head'][number], i: number) => (
    <span key={`${prefix}${i}`} className={c.stream === 'stderr' ? 'stderr' : undefined} data-stream={c.stream}>
      {c.text}
    </span>
  )
  return (
    <pre
      ref={log}
      className="command-output"
      role="log"
      aria-live="off"
      aria-label={label}
      tabIndex={0}
      data-testid="command-output"
      onScroll={(e) => {
        const el = e.currentTarget
        following.current = el.scrollHeight - el.scrollTop - el.clientHeight < 8
      }}
    >
      {output.head.map(chunk('h'))}
      {output.cutChars > 0 && (
        <span className="output-cut" data-testid="output-cut">
          {'\n'}… {output.cutChars.toLocaleString('en')} characters cut here …{'\n'}
        </span>
      )}
      {output.tail.map(chunk('t'))}
    </pre>
  )
}

const changeWords: Record<string, string> = { created: 'created', modified: 'modified', deleted: 'deleted', mode: 'mode changed' }

/** The files a command changed in the workspace, each with its diff folded, and those it cannot undo. */
function CommandChanges({ details, command, notKept }: { details: CommandDetails; command: string; notKept: string[] }) {
  const changes = details.changes ?? []
  const notUndoable = new Set([...(details.notUndoable ?? []), ...notKept])
  const unlisted = [...notUndoable].filter((p) => !changes.some((c) => c.path === p))
  const more = details.moreChanges ?? 0
  const refused = details.refused ?? []
  const left = refused.length > 0 && (
    <div className="tool-error" role="note" data-testid="command-refused">
      Left out (no tool may change {refused.length === 1 ? 'it' : 'them'}): {refused.join(', ')}
    </div>
  )
  if (changes.length === 0 && unlisted.length === 0)
    return (
      <>
        <div className="tool-note">No file changed.</div>
        {left}
      </>
    )
  const row = (c: CommandChange) => {
    const size = c.kind !== 'deleted' && c.bytes ? ` (${bytesText(c.bytes)})` : ''
    const what = `${changeWords[c.kind] ?? c.kind} ${c.path}${size}`
    return (
      <li key={c.path} className={`command-change kind-${c.kind}`}>
        {c.diff ? <DiffView diff={c.diff} label={what} path={c.path} /> : <span>{what}</span>}
        {notUndoable.has(c.path) && (
          <span className="badge err" role="note" title="Too large to keep: this change cannot be undone.">
            not undoable
          </span>
        )}
      </li>
    )
  }
  return (
    <div className="command-changes">
      <div className="muted small">
        {changes.length + more === 1 ? '1 file changed' : `${(changes.length + more).toLocaleString('en')} files changed`}
      </div>
      <ul aria-label={`Files changed by ${command}`}>
        {changes.map(row)}
        {more > 0 && <li className="muted">… and {more.toLocaleString('en')} more</li>}
      </ul>
      {left}
      {unlisted.map((p) => (
        <div key={p} className="tool-error" role="note">
          {p} was too large to keep: this change cannot be undone.
        </div>
      ))}
    </div>
  )
}

/** The network checkbox and the prefix "Always allow" remembers, on a waiting command. */
function CommandApproval({ card, command, cwd, current, decided }: { card: ToolCardModel; command: string; cwd: string; current: boolean; decided?: Decision }) {
  const store = useStore()
  const chosen = useAppState((s) => s.commandChoices[card.id])
  const choice = chosen ?? { network: false, pattern: suggestedPattern(card) }
  return (
    <div className="command-approval">
      <CommandLineView command={command} />
      <div className="muted small">in {cwd || 'the workspace'}, in a sandbox</div>
      <label className="check">
        <input
          type="checkbox"
          checked={choice.network}
          disabled={!!decided}
          aria-keyshortcuts={current ? networkShortcut.label : undefined}
          onChange={(e) => store.setCommandChoice(card.id, { network: e.target.checked })}
        />
        Allow network
        {current && <ShortcutKey shortcut={networkShortcut} />}
      </label>
      <label className="command-pattern">
        Always allow commands starting with
        <input
          // named without its value (a field's text is read as its value, not as its name)
          aria-label="Always allow commands starting with"
          value={choice.pattern}
          spellCheck={false}
          disabled={!!decided}
          onChange={(e) => store.setCommandChoice(card.id, { pattern: e.target.value })}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault()
              void store.allowAlways(card.id)
            }
          }}
        />
      </label>
      {!choice.pattern.trim() && <div className="muted small">Write the start of the commands to always allow.</div>}
    </div>
  )
}

/**
 * The card of a run_command call, titled by what happened: the command waiting for approval
 * (with its folder, the network and the prefix to always allow), running with its output live,
 * then how it ended, how long it took and the files it changed.
 */
export function CommandCard({ card, ...decisions }: CardDecisionProps & { card: ToolCardModel }) {
  const { command, cwd } = commandOf(card)
  const title = commandTitle(card)
  const details = card.details?.command ?? null
  const ended = card.state === 'completed' || card.state === 'undone' || card.state === 'failed' || card.state === 'stopped' || card.state === 'interrupted'
  const label = shortCommand(command) || 'the command'
  const duration = details?.durationMs ?? card.durationMs
  return (
    <div
      className={`tool-card command-card state-${card.state}`}
      data-testid="tool-card"
      data-tool-call-id={card.id}
      data-tool-state={card.state}
      data-tool-name={card.name}
      role="group"
      aria-label={[title, ended ? exitStatus(card) : '', card.state === 'undone' ? 'undone' : ''].filter(Boolean).join(', ')}
    >
      <div className="tool-head">
        <span className="command-title" title={command} data-testid="tool-subject">
          {title}
        </span>
        {cwd && <span className="muted small command-folder">in {cwd}</span>}
        <CommandBadge card={card} />
      </div>
      {card.state === 'awaiting_approval' && (
        <div className="approval">
          <PreviewFails card={card} />
          <CommandApproval card={card} command={command} cwd={cwd} current={!!decisions.current} decided={decisions.decided} />
          <CardApprovalActions card={card} alwaysLabel="Always allow" {...decisions} />
        </div>
      )}
      {card.state === 'running' && <OutputLog output={card.commandOutput ?? emptyOutput} label={`Output of ${label}, live`} />}
      {ended && (
        <div className="tool-note command-facts" data-testid="command-facts">
          {[
            duration !== null && duration !== undefined ? `took ${formatDuration(duration)}` : '',
            details?.network ? 'with network' : '',
            details?.unconfined ? 'without the sandbox' : '',
          ]
            .filter(Boolean)
            .join(' · ')}
        </div>
      )}
      <OutcomeSentence card={card} what="command" />
      {details && ended && <CommandChanges details={details} command={label} notKept={card.notUndoable ?? []} />}
      {/* a stopped or failed command's result is its sentence: folded output only when it says more */}
      {ended && (card.commandOutput || (card.state === 'completed' ? card.output : card.output.trim().includes('\n'))) && (
        <details className="tool-output" open={details && (details.exitCode !== 0 || details.timedOut) ? true : undefined}>
          <summary>Output</summary>
          {card.commandOutput ? (
            <OutputLog output={card.commandOutput} label={`Output of ${label}`} />
          ) : (
            <pre className="command-output" tabIndex={0} aria-label={`Output of ${label}`}>
              {card.output}
            </pre>
          )}
        </details>
      )}
    </div>
  )
}
