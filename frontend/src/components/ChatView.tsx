import { useEffect, useMemo, useRef, useState, type ReactNode } from 'react'
import {
  emptyAnswerCode,
  isStoppedNotice,
  oldestWaitingCard,
  redoable,
  standingChange,
  terminalToolStates,
  type ChatState,
  type TimelineEntry,
} from '../state/chatReducer'
import { useAppState, useStore } from '../state/useAppState'
import { focusComposer } from '../keyboard/menus'
import { ExamplePrompts } from './ExamplePrompts'
import { attentionKey } from './chatAttention'
import { ItemBoundary } from './ItemBoundary'
import { runActivity } from '../state/runState'
import { ModelLoadingNote } from './ModelLoadingNote'
import { changesShortcut, redoShortcut } from '../keyboard/shortcuts'
import { undoneLinesAfter } from './RunUndoneLine'
import { TranscriptEntry, type CardHandlers } from './TranscriptEntry'
import { alwaysRendered, estimatedHeight, noEntries, spacerHeight, type EntryRange } from './transcriptWindow'
import { useTranscriptWindow } from './useTranscriptWindow'

/**
 * How much of a long chat is its tail, rendered while the view follows its end: the newest
 * entries whose text adds up to about this many characters (some 10 screens), at most
 * `alwaysRendered` of them. The oldest entry kept may be cut: of a long answer only its last
 * Markdown blocks are shown. The entries before the tail are rendered only when in view
 * (transcriptWindow.ts), so a chat that streams for hours keeps a steady DOM and memory instead
 * of one that grows with every answer, and that does not swing by a whole answer at a time.
 */
export const mountedChars = 40_000

/**
 * Where the page starts: the first timeline entry shown and, when that entry is an answer shown
 * only in part, the character offset in its text from which its Markdown blocks are shown (the
 * block holding that offset and every later one).
 */
export interface ShownFrom {
  entry: number
  from: number
}

const wholeChat: ShownFrom = { entry: 0, from: 0 }

/** An entry's size in characters, what the tail's budget counts. */
export function entrySize(chat: ChatState, e: TimelineEntry): number {
  if (e.kind === 'message') {
    const m = chat.messages[e.id]
    return m ? m.content.length + (m.complete ? 0 : m.thinking.length) : 0
  }
  if (e.kind === 'tool') return 300 + (chat.tools[e.id]?.details?.diff?.length ?? 0)
  if (e.kind === 'offer') return 300
  return e.text.length
}

// A card that is not finished is never taken out of the page (the paint acknowledgement reports
// the running cards it finds in the DOM), nor is a message still streaming (it keeps its lexer).
function isLive(chat: ChatState, e: TimelineEntry): boolean {
  if (e.kind === 'message') return chat.messages[e.id]?.complete === false
  if (e.kind === 'tool') {
    const c = chat.tools[e.id]
    return !!c && !terminalToolStates.has(c.state)
  }
  return false
}

/** Where the tail starts while the view follows the end of the chat. */
export function followStart(chat: ChatState, budget = mountedChars, most = alwaysRendered): ShownFrom {
  const t = chat.timeline
  let used = 0
  let i = t.length
  let from = 0
  while (i > 0 && t.length - i < most) {
    const e = t[i - 1]
    const size = entrySize(chat, e)
    if (used + size > budget) {
      // Only the end of an answer fits: its last blocks are shown, up to the budget.
      const m = e.kind === 'message' ? chat.messages[e.id] : undefined
      const left = budget - used
      if (m?.role === 'assistant' && left > 0 && m.content.length > 0) {
        from = Math.max(0, m.content.length - left)
        i--
      }
      break
    }
    used += size
    i--
  }
  for (let j = 0; j < i; j++) if (isLive(chat, t[j])) return { entry: j, from: 0 }
  return { entry: i, from }
}

function earlier(a: ShownFrom, b: ShownFrom): ShownFrom {
  return a.entry < b.entry || (a.entry === b.entry && a.from <= b.from) ? a : b
}

function runOf(chat: ChatState, e: TimelineEntry): string {
  if (e.kind === 'message') return chat.messages[e.id]?.runId ?? ''
  if (e.kind === 'tool') return chat.tools[e.id]?.runId ?? ''
  return ''
}

/**
 * Where the run controls go: after the last entry of each run whose checkpoint stands ("Undo"),
 * and on each user message followed by such a run ("Restore to here", which undoes the first run
 * after the message and every later one).
 */
export function runControls(chat: ChatState): { undoAfter: Map<number, string>; restoreAt: Map<string, string> } {
  const undoAfter = new Map<number, string>()
  const restoreAt = new Map<string, string>()
  const lastOf = new Map<string, number>()
  chat.timeline.forEach((e, i) => {
    const r = runOf(chat, e)
    if (r) lastOf.set(r, i)
  })
  for (const [run, i] of lastOf) if (standingChange(chat, run)) undoAfter.set(i, run)
  let standingLater = false
  let nextRun = ''
  for (let i = chat.timeline.length - 1; i >= 0; i--) {
    const e = chat.timeline[i]
    const r = runOf(chat, e)
    if (r && chat.messages[e.id]?.role !== 'user') {
      nextRun = r
      if (standingChange(chat, r)) standingLater = true
    }
    if (e.kind === 'message' && chat.messages[e.id]?.role === 'user' && standingLater && nextRun) restoreAt.set(e.id, nextRun)
  }
  return { undoAfter, restoreAt }
}

/**
 * Where the answer of a stopped run that ends the chat starts (after its question): its
 * notice offers Regenerate, which asks that question again as each of the answer's messages
 * would, so they offer none of their own. Past the end when the chat ends otherwise.
 */
export function stoppedAnswerStart(chat: ChatState): number {
  const end = chat.timeline.at(-1)
  if (!end || !isStoppedNotice(end)) return chat.timeline.length
  for (let i = chat.timeline.length - 1; i >= 0; i--) {
    const e = chat.timeline[i]
    if (e.kind === 'message' && chat.messages[e.id]?.role === 'user') return i + 1
  }
  return 0
}

/** Whether the run's change was undone: what its cards wrote is no longer there to open. */
function undoneRun(chat: ChatState, runId: string | undefined): boolean {
  return chat.changes.some((c) => c.id === runId && c.kind === 'run' && !!c.revertedBy)
}

/**
 * Whether the empty answer at entry `at` is said by what follows it: the model asked again
 * answered nothing again, or the run ended saying so. One empty answer is said once.
 */
function emptySaidLater(chat: ChatState, at: number): boolean {
  const m = chat.messages[chat.timeline[at]?.id ?? '']
  if (!m?.empty) return false
  const next = chat.timeline[at + 1]
  if (!next) return false
  if (next.kind === 'notice') return next.code === emptyAnswerCode
  const n = next.kind === 'message' ? chat.messages[next.id] : undefined
  return !!n && n.runId === m.runId && n.role === 'assistant' && n.complete && !!n.empty
}

/**
 * The messages, tool cards and notices of one chat, in the order they happened: of the entries
 * before `start` (the tail) only those of `above`, the others standing as spacers of their
 * `heights`; from `start` on, all of them. Each entry is one `.entry` element named by its id
 * (`data-entry`), which the transcript measures.
 */
export function Timeline({
  chat,
  start = wholeChat,
  above = noEntries,
  heights = [],
}: {
  chat: ChatState
  start?: ShownFrom
  above?: EntryRange
  heights?: readonly number[]
}) {
  const store = useStore()
  // A decision spends the card's buttons: the focus goes on to the composer rather than to
  // nowhere (a reason being typed keeps it until it is sent).
  const handlers = useMemo<CardHandlers>(
    () => ({
      decide: (id, d, reason) => {
        void (reason ? store.decide(id, d, reason) : store.decide(id, d))
        focusComposer()
      },
      allowAlways: (id) => void store.allowAlways(id),
      askReason: (id) => store.askReason(id),
      open: (path, inFolder, toolCallId) => void store.openPath(path, inFolder, { toolCallId }),
    }),
    [store],
  )
  const decisions = useAppState((s) => s.decisions)
  const reasonFor = useAppState((s) => s.reasonFor)
  const versions = useAppState((s) => s.versions[chat.chatId])
  const editing = useAppState((s) => s.editing)
  const queued = useAppState((s) => s.queued[chat.chatId])
  const idle = chat.phase === 'idle'
  // The card the approval keys apply to; its Approve button takes the focus.
  const current = oldestWaitingCard(chat, decisions)?.id
  const { undoAfter, restoreAt } = runControls(chat)
  const undoneAfter = undoneLinesAfter(chat)
  const activity = runActivity(chat)
  const regeneratedFrom = stoppedAnswerStart(chat)
  const tail = Math.min(start.entry, chat.timeline.length)
  const first = Math.min(above.first, tail)
  const last = Math.min(above.last, tail)
  // the newest run whose change stands: its Undo is the one the undo shortcut takes
  const newestRun = [...chat.changes].reverse().find((c) => c.kind === 'run' && !c.revertedBy && !c.otherVersion && (c.paths?.length ?? 0) > 0)?.id
  // Each entry gets its own parts of the chat and flags, so that it renders only when they change.
  const entry = (at: number, from: number) => {
    const e = chat.timeline[at]
    const undo = undoAfter.get(at)
    const m = e.kind === 'message' ? chat.messages[e.id] : undefined
    const c = e.kind === 'tool' ? chat.tools[e.id] : undefined
    const waits = !!m && !!queued?.includes(m.id)
    return (
      <TranscriptEntry
        key={e.id}
        entry={e}
        from={from}
        undo={undo ? (standingChange(chat, undo) ?? undefined) : undefined}
        undoKeys={!!undo && undo === newestRun}
        undone={undoneAfter.get(at)}
        message={m}
        idle={!!m && idle}
        regeneratedBelow={!!m && at >= regeneratedFrom}
        emptySaidLater={!!m && emptySaidLater(chat, at)}
        restore={m ? restoreAt.get(e.id) : undefined}
        queued={waits}
        version={m ? versions?.find((v) => v.messageId === m.id) : undefined}
        editing={!!m && editing === m.id}
        card={c}
        handlers={handlers}
        undoneRun={!!c && undoneRun(chat, c.runId)}
        decided={c ? decisions[c.id] : undefined}
        askingReason={!!c && reasonFor === c.id}
        current={!!c && c.id === current}
        offer={e.kind === 'offer' ? chat.offers[e.id] : undefined}
        waiting={e.kind === 'offer' && chat.phase === 'awaiting_summary'}
        last={e.kind === 'notice' && at === chat.timeline.length - 1}
      />
    )
  }
  const spacer = (from: number, to: number) =>
    to > from && <div key={`spacer-${from}`} className="entries-spacer" aria-hidden="true" style={{ height: spacerHeight(heights, from, to) }} />
  const before: ReactNode[] = []
  if (last > first) {
    before.push(spacer(0, first))
    for (let at = first; at < last; at++) before.push(entry(at, 0))
  }
  before.push(spacer(last > first ? last : 0, tail))
  const rendered: ReactNode[] = []
  for (let at = tail; at < chat.timeline.length; at++) rendered.push(entry(at, at === tail ? start.from : 0))
  return (
    <>
      {tail > 0 && (
        // what scrolling up brings into the page was said long ago: not read out as news
        <div className="entries-above" aria-live="off">
          {before}
        </div>
      )}
      {rendered}
      {activity.kind === 'loading' && <ModelLoadingNote model={activity.model} since={activity.since} />}
      {chat.phase === 'submitted' && activity.kind === 'phase' && (
        <div className="typing" data-testid="typing" aria-label="The model is starting">
          <span />
          <span />
          <span />
        </div>
      )}
    </>
  )
}

/** Redo, the review of changed files, and what the last undo did or why it was refused. */
export function ChangesBar({ chat }: { chat: ChatState }) {
  const store = useStore()
  const note = useAppState((s) => (s.undoNote?.chatId === chat.chatId ? s.undoNote.text : ''))
  const conflict = useAppState((s) => (s.undoConflict?.chatId === chat.chatId ? s.undoConflict : null))
  const reviewOpen = useAppState((s) => s.review?.chatId === chat.chatId)
  const canRedo = !!redoable(chat)
  const changed = chat.changes.some((c) => (c.paths?.length ?? 0) > 0)
  if (!changed && !note && !conflict) return null
  return (
    <div className="changes-bar" data-testid="changes-bar">
      {changed && (
        <button
          type="button"
          aria-keyshortcuts={changesShortcut.label}
          aria-expanded={reviewOpen}
          onClick={() => (reviewOpen ? store.closeReview() : void store.loadReview(chat.chatId))}
        >
          Changes
          <kbd className="shortcut" aria-hidden="true">
            {changesShortcut.label}
          </kbd>
        </button>
      )}
      {canRedo && (
        <button type="button" aria-keyshortcuts={redoShortcut.label} onClick={() => void store.redo()}>
          Redo
          <kbd className="shortcut" aria-hidden="true">
            {redoShortcut.label}
          </kbd>
        </button>
      )}
      {note && (
        <span className="muted small" role="status" data-testid="undo-note">
          {note}
        </span>
      )}
      {conflict && (
        <div className="undo-conflict" role="alert" data-testid="undo-conflict">
          <div>{conflict.message}</div>
          <div className="row">
            <button type="button" className="primary" onClick={() => void store.resolveConflict('keep')}>
              Keep mine beside it
            </button>
            <button type="button" onClick={() => void store.resolveConflict('force')}>
              Overwrite mine
            </button>
            <button type="button" onClick={() => void store.resolveConflict('cancel')}>
              Cancel
            </button>
          </div>
        </div>
      )}
    </div>
  )
}

/** The active chat, scrolled to the end while the user has not scrolled up. */
export function ChatView() {
  const activeId = useAppState((s) => s.activeChatId)
  // Keyed by chat: another chat starts at its end with nothing pinned.
  return (
    <ItemBoundary key={activeId ?? ''} what="chat">
      <ChatScroller />
    </ItemBoundary>
  )
}

function ChatScroller() {
  const chat = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId] : undefined))
  const scroller = useRef<HTMLElement>(null)
  // null while the view follows the end; where the tail starts once the user scrolled up, so
  // that nothing above the part being read moves. Away from the end, an answer cut in the tail
  // is shown whole.
  const [pinned, setPinned] = useState<ShownFrom | null>(null)
  const follow = chat ? followStart(chat) : wholeChat
  const start = pinned ? { ...earlier(pinned, follow), from: 0 } : follow
  const cut = start.from > 0 ? (chat?.timeline[start.entry]?.id ?? '') : ''
  const win = useTranscriptWindow(
    scroller,
    chat?.timeline ?? [],
    start.entry,
    pinned === null,
    () => setPinned((p) => p ?? start),
    (e) => (chat ? estimatedHeight(entrySize(chat, e)) : 0),
    cut,
  )
  // A message sent, or a question put to the user, brings the chat back to its end.
  const attention = attentionKey(chat)
  const seen = useRef(attention)
  useEffect(() => {
    const was = seen.current.split('\n')
    seen.current = attention
    // one that appeared, not one answered
    if (attention.split('\n').some((k, i) => k !== '' && k !== was[i])) setPinned(null)
  }, [attention])

  const empty = !chat || chat.timeline.length === 0
  return (
    <section
      className="messages"
      ref={scroller}
      aria-live="polite"
      data-testid="messages"
      onKeyDown={win.onKeyDown}
      onScroll={(e) => {
        const el = e.currentTarget
        const atEnd = el.scrollHeight - el.scrollTop - el.clientHeight < 40
        if (atEnd && pinned !== null) setPinned(null)
        else if (!atEnd && pinned === null) setPinned(start)
        win.onScroll()
      }}
    >
      {empty && !chat?.phase.match(/submitted/) ? (
        <div className="empty">
          <p>Describe what to build. Prototyper writes the files in your workspace.</p>
          <ExamplePrompts />
        </div>
      ) : (
        <div className="timeline">{chat && <Timeline chat={chat} start={start} above={win.range} heights={win.heights} />}</div>
      )}
    </section>
  )
}
