// One entry of the transcript (a message, a tool card, a summary offer or a notice) and the run
// controls under it. An entry renders again only when what it shows changed: while an answer
// streams, a frame redoes the streaming message and nothing above it, so the time from a batch
// to its paint does not grow with the length of the chat. Its props are therefore the entry's
// own parts of the chat (the objects the reducer keeps while they do not change) and flags
// computed for it, never the chat itself or a function made anew for each render.

import { memo } from 'react'
import type { ChangeSummary, Decision, Version } from '../backend'
import type { MessageView, OfferView, TimelineEntry, ToolCard as ToolCardModel } from '../state/chatReducer'
import { isStoppedNotice } from '../state/chatReducer'
import { filesAndFolders, pathList, runChangeText } from '../state/store'
import { useStore } from '../state/useAppState'
import { undoShortcut } from '../keyboard/shortcuts'
import { ErrorNotice } from './ErrorNotice'
import { ItemBoundary } from './ItemBoundary'
import { Message } from './Message'
import { EditBox, MessageActions } from './MessageActions'
import { RunUndoneLine } from './RunUndoneLine'
import { StoppedNotice } from './StoppedNotice'
import { SummaryOfferCard } from './SummaryOfferCard'
import { ToolCard } from './ToolCard'

/** The start of a message, to name the control that acts on it: its first line, up to 40 characters. */
export function excerpt(text: string): string {
  const line = text.trim().split('\n')[0]
  return line.length > 40 ? `${line.slice(0, 39)}…` : line
}

/** What a tool card's buttons call; the same functions for every card and every render. */
export interface CardHandlers {
  decide: (id: string, d: Decision, reason?: string) => void
  allowAlways: (id: string) => void
  askReason: (id: string | null) => void
  open: (path: string, inFolder: boolean, toolCallId: string) => void
}

/** Everything one entry shows: the parts of the chat it is about, and the flags computed for it. */
export interface TranscriptEntryProps {
  entry: TimelineEntry
  /** For an answer shown in part: the offset from which its blocks are shown. */
  from: number
  /** The run whose standing change is said under this entry (its last), with Undo. */
  undo?: ChangeSummary
  /** Whether that Undo is the one the undo shortcut takes (the newest run's). */
  undoKeys: boolean
  /** The line of a run undone, under its last entry. */
  undone?: string
  message?: MessageView
  /** The chat is idle: a message can be edited, an answer regenerated. */
  idle: boolean
  /** An answer of the stopped run that ends the chat: its notice's Regenerate is the one offered. */
  regeneratedBelow: boolean
  emptySaidLater: boolean
  /** The run "Restore to here" on this user message undoes from. */
  restore?: string
  /** The message is queued: sent while the chat ran, not taken by its run yet. */
  queued: boolean
  version?: Version
  /** The message is being edited. */
  editing: boolean
  card?: ToolCardModel
  handlers: CardHandlers
  /** The card's run was undone: what it wrote is no longer there to open. */
  undoneRun: boolean
  decided?: Decision
  askingReason: boolean
  /** The card the approval keys apply to. */
  current: boolean
  offer?: OfferView
  /** A summary offer waits for its answer. */
  waiting: boolean
  /** The entry is the chat's last. */
  last: boolean
}

/** One `.entry` element named by its id (`data-entry`), which the transcript measures. */
export const TranscriptEntry = memo(function TranscriptEntry(props: TranscriptEntryProps) {
  const { entry: e, undo, undone } = props
  const item = entryItem(props)
  if (!item) return null
  return (
    <div className="entry" data-entry={e.id}>
      {undo || undone ? (
        <div className="run-end">
          {item}
          {undone && <RunUndoneLine text={undone} />}
          {undo && <RunUndo change={undo} keys={props.undoKeys} />}
        </div>
      ) : (
        item
      )}
    </div>
  )
})

function entryItem(p: TranscriptEntryProps) {
  const e = p.entry
  // Each item renders inside its own boundary: an error in one never blanks the chat.
  if (e.kind === 'message') return p.message ? <MessageItem {...p} message={p.message} /> : null
  if (e.kind === 'tool') {
    const c = p.card
    if (!c) return null
    const h = p.handlers
    return (
      <ItemBoundary what="tool call" resetKey={c} attributes={{ 'data-tool-call-id': c.id, 'data-tool-state': c.state }}>
        <ToolCard
          card={c}
          onDecide={h.decide}
          onAllowAlways={h.allowAlways}
          onAskReason={h.askReason}
          askingReason={p.askingReason}
          onOpen={p.undoneRun ? undefined : h.open}
          decided={p.decided}
          current={p.current}
        />
      </ItemBoundary>
    )
  }
  if (e.kind === 'offer') return p.offer ? <OfferItem offer={p.offer} waiting={p.waiting} /> : null
  if (e.tone === 'error' && e.code) return <ErrorNotice code={e.code} message={e.text} />
  // the live run's "Stopped.", or the notice of a stopped run the store gave (OpenedChat.stopped)
  if (isStoppedNotice(e)) return <StoppedNotice text={e.text} last={p.last} />
  return (
    <div className={`notice ${e.tone}`} role={e.tone === 'error' ? 'alert' : undefined} data-testid="notice">
      {e.tone === 'error' ? '⚠ ' : ''}
      {e.text}
    </div>
  )
}

function MessageItem(p: TranscriptEntryProps & { message: MessageView }) {
  const { message: m, from, idle, emptySaidLater, restore, queued, version, editing } = p
  const store = useStore()
  const actions = (m.role === 'user' || m.role === 'assistant') && (
    <MessageActions
      message={m}
      idle={idle}
      regenerable={!p.regeneratedBelow}
      version={version}
      queued={queued}
      onEdit={() => store.edit(m.id)}
    />
  )
  return (
    <ItemBoundary what="message" resetKey={m}>
      {editing && (idle || queued) ? (
        <EditBox message={m} onDone={() => store.edit('')} onSend={queued ? (text) => void store.editQueued(m.id, text) : undefined} />
      ) : (
        <>
          <Message message={m} from={from} emptySaidLater={emptySaidLater} />
          {restore ? (
            <div className={`message-footer ${m.role}`}>
              {actions}
              <button
                type="button"
                className="link restore-here"
                data-testid="restore-here"
                aria-label={`Restore to here, before “${excerpt(m.content)}”`}
                title="Undo the runs of this message and of every later one, newest first"
                onClick={() => void store.undo({ fromRun: restore })}
              >
                Restore to here
              </button>
            </div>
          ) : (
            actions
          )}
        </>
      )}
    </ItemBoundary>
  )
}

function OfferItem({ offer, waiting }: { offer: OfferView; waiting: boolean }) {
  const store = useStore()
  return <SummaryOfferCard offer={offer} waiting={waiting} onAnswer={(choice) => void store.answerSummary(choice)} />
}

/** "This run created a.txt and edited b.txt · Undo", under the last entry of a run whose change stands. */
function RunUndo({ change, keys }: { change: ChangeSummary; keys: boolean }) {
  const store = useStore()
  const runId = change.id
  const label = keys ? undoShortcut.label : undefined
  return (
    <div className="run-changes" data-testid="run-changes" data-run-id={runId}>
      <span className="muted small" title={change.paths?.join('\n')}>
        {runChangeText(change)}.
      </span>
      <button
        type="button"
        aria-label={`Undo the run that changed ${pathList(filesAndFolders(change.paths ?? []).files)}`}
        aria-keyshortcuts={label}
        onClick={() => void store.undo({ runId })}
      >
        Undo{label && <kbd className="shortcut" aria-hidden="true">{label}</kbd>}
      </button>
    </div>
  )
}
