// The state of one chat as the window shows it, and the one pure reducer that applies agent
// events to it. Events are applied in `seq` order; a duplicate is ignored; an event that comes
// late (a lower seq never seen before) is still applied where that is safe: tool-card states only
// move forward, a phase older than the current one is ignored. An event about a tool card or a
// message nobody announced creates it instead of being dropped.

import type { AgentEvent, ChangeSummary, OpenedChat, Phase, Preview, Role, StopReason, SummaryChoice, ToolDetails, Usage } from '../backend'
import {
  checkApproval,
  checkSummaryChoice,
  checkDetails,
  checkOpenedChat,
  checkPhase,
  checkPreview,
  checkRole,
  checkUsage,
  type CheckedMessage,
  type CheckedNote,
  type CheckedToolCall,
  stringMap,
} from './records'
import { codeOnceBack } from './errorSentences'
import { tokenCount } from '../tokenCount'
import { appendOutput, emptyOutput, type CommandOutput } from './commandOutput'

/** What a tool card shows. Visual only; never persisted. */
export type ToolVisualState =
  | 'pending'
  | 'running'
  | 'awaiting_approval'
  | 'completed'
  | 'failed'
  | 'denied'
  | 'interrupted'
  /** The call did not run, and that is no failure: the user replied or stopped, the loop guard refused it. */
  | 'not_run'
  /** The call was running when the user stopped its run: it did not complete, and did not fail. */
  | 'stopped'
  /** The call completed, and an undo (of its run, a Restore to here, a Revert) took its change back. */
  | 'undone'

export const terminalToolStates: ReadonlySet<ToolVisualState> = new Set([
  'completed',
  'failed',
  'denied',
  'interrupted',
  'not_run',
  'stopped',
  'undone',
])

export interface ToolCard {
  id: string
  name: string
  args: unknown
  state: ToolVisualState
  messageId: string
  runId: string
  output: string
  details: ToolDetails | null
  durationMs: number | null
  approval: { decision: string; by: string; reason: string } | null
  progress: unknown
  /** Read from the store when the chat was opened, not seen happening in this window. */
  restored?: boolean
  /** The change the call would make, while it waits for approval. */
  preview?: Preview | null
  /** Files too large to keep: the call's change cannot be undone. */
  notUndoable?: string[]
  /** The model wrote the call as text (origin 'text'): it runs only if allowed, never when copied from what the model read. */
  recovered?: boolean
  /** Why the call did not run (state not_run): a NotRunReason, or one a newer Go side knows. */
  notRun?: string
  /** What a command printed while it ran (tool.output), bounded: seen live in this window only. */
  commandOutput?: CommandOutput
}

export interface MessageView {
  id: string
  role: Role
  runId: string
  content: string
  thinking: string
  /** Event time of the first thinking delta, while the thought is live. */
  thinkingStartedAt: number | null
  /** How long the model thought; set when the thought ended. */
  thinkingMs: number | null
  complete: boolean
  doneReason: string
  usage: Usage | null
  /** A user message the window added before the Go side confirmed it; deltas never touch it. */
  local: boolean
  /** An answer that ended with no text and no tool call. */
  empty?: boolean
  /** A system message showing the project instructions: where they came from. */
  instructions?: string
  /** Images sent with a user's message (base64). */
  images?: string[]
  /** A system message with the model's summary of older turns left out to fit its context. */
  summary?: boolean
  /** Files a user's message named with @path (from the store; a message sent in this window names them in its text). */
  files?: { path: string; content: string }[]
}

/** A run's offer to summarize the older messages that no longer fit, and the answer. */
export interface OfferView {
  id: string
  runId: string
  /** The offer's sentence: how many messages, the model, how many tokens of its context. */
  text: string
  /** '' while nobody answered; 'none' when it was closed unanswered. */
  choice: SummaryChoice | ''
}

export type TimelineEntry =
  | { kind: 'message'; id: string }
  | { kind: 'tool'; id: string }
  | { kind: 'offer'; id: string }
  | { kind: 'notice'; id: string; tone: 'error' | 'info'; text: string; code?: string }

export interface ChatState {
  chatId: string
  phase: Phase
  /** Something is happening (spinner, Stop): the Go side's word for the phase, never decided here. */
  busy: boolean
  /** seq of the phase event that set `phase` (0: from the store or initial). */
  phaseSeq: number
  runId: string
  /** Highest seq applied. */
  lastSeq: number
  /** The most recent applied seqs, to tell a duplicate from a late event. */
  recentSeqs: number[]
  messages: Record<string, MessageView>
  tools: Record<string, ToolCard>
  timeline: TimelineEntry[]
  /** True once the persisted history was merged in (or the chat is new). */
  loaded: boolean
  /** The model Ollama is loading for this chat's run, and since when (ms); null when none. */
  loadingModel: { model: string; since: number } | null
  /** The chat's checkpoints, oldest first: runs that changed files, undos, redos. */
  changes: ChangeSummary[]
  /** The summary offers of the chat's runs, by offer id. */
  offers: Record<string, OfferView>
  /** For each run whose changes stand undone, the line its answer carries (the Go side's words). */
  undoneRuns: Record<string, string>
}

const recentWindow = 256

export function emptyChat(chatId: string): ChatState {
  return {
    chatId,
    phase: 'idle',
    busy: false,
    phaseSeq: 0,
    runId: '',
    lastSeq: 0,
    recentSeqs: [],
    messages: {},
    tools: {},
    timeline: [],
    loaded: false,
    loadingModel: null,
    changes: [],
    offers: {},
    undoneRuns: {},
  }
}

/** The summary offer the open chat waits for an answer to, if any. */
export function waitingOffer(chat: ChatState | undefined): OfferView | null {
  if (!chat || chat.phase !== 'awaiting_summary') return null
  for (let i = chat.timeline.length - 1; i >= 0; i--) {
    const e = chat.timeline[i]
    if (e.kind === 'offer' && chat.offers[e.id] && !chat.offers[e.id].choice) return chat.offers[e.id]
  }
  return null
}

/** The run's checkpoint while it stands (not undone) and holds paths: its "Undo" shows. */
export function standingChange(chat: ChatState, runId: string): ChangeSummary | null {
  const c = chat.changes.find((x) => x.id === runId && x.kind === 'run')
  return c && !c.revertedBy && !c.otherVersion && (c.paths?.length ?? 0) > 0 ? c : null
}

/** The newest undo that stands, of the version of the chat shown (the Go side marks the others): what Redo takes back. */
export function redoable(chat: ChatState): ChangeSummary | null {
  for (let i = chat.changes.length - 1; i >= 0; i--) {
    const c = chat.changes[i]
    if (c.kind === 'undo' && !c.revertedBy && !c.otherVersion && (c.paths?.length ?? 0) > 0) return c
  }
  return null
}

// An undo or a redo carries the state of every card of a call that changed files and the lines
// of the runs whose changes stand undone, as the Go side says them now: a card turns undone or
// back to done, never any other way (a card this window has not seen is not made here).
function undoneAsGoSays(s: ChatState, ev: AgentEvent): ChatState {
  const states = stringMap(ev.toolStates)
  let tools = s.tools
  for (const [id, state] of Object.entries(states)) {
    const c = tools[id]
    const turns = (state === 'undone' && c?.state === 'completed') || (state === 'completed' && c?.state === 'undone')
    if (turns) tools = { ...tools, [id]: { ...c, state } }
  }
  return { ...s, tools, undoneRuns: stringMap(ev.undoneRuns) }
}

const pathsOf = (v: unknown): string[] => (Array.isArray(v) ? v.filter((p): p is string => typeof p === 'string') : [])

// A call's result says, as the run's change stands after it, what the run did at the paths the
// call's checkpoint announced: those it changed (created, deleted, the others edited: the Go
// side's word, never guessed here) and those it left as they were (the call failed, or put back
// what it wrote): the run did not change them.
function leftByCall(s: ChatState, ev: AgentEvent): ChatState {
  const said = { paths: pathsOf(ev.paths), created: pathsOf(ev.created), deleted: pathsOf(ev.deleted), same: pathsOf(ev.unchanged) }
  if (said.paths.length === 0 && said.same.length === 0) return s
  const runId = ev.runId ?? ''
  const run = (c: ChangeSummary) => c.id === runId && c.kind === 'run'
  const changes = s.changes.some(run) ? s.changes : [...s.changes, { id: runId, kind: 'run', paths: [] }]
  return { ...s, changes: changes.map((c) => (run(c) ? withEffects(c, said) : c)) }
}

// The run's change with what an event says of some of its paths: those changed added with their
// effect (what it said of them before replaced), those left as they were taken out.
function withEffects(c: ChangeSummary, said: { paths: string[]; created: string[]; deleted: string[]; same: string[] }): ChangeSummary {
  const told = new Set([...said.paths, ...said.same])
  const kept = (ps: string[] | null | undefined) => (ps ?? []).filter((p) => !told.has(p))
  return {
    ...c,
    paths: [...(c.paths ?? []).filter((p) => !said.same.includes(p)), ...said.paths.filter((p) => !c.paths?.includes(p))],
    created: [...kept(c.created), ...said.created],
    deleted: [...kept(c.deleted), ...said.deleted],
  }
}

// A checkpoint event adds the paths kept to its run's change; an undo or a redo adds its own and
// marks what it took back (a redo also brings back the runs its undo had taken back).
function applyChange(s: ChatState, ev: AgentEvent): ChatState {
  const paths = (ev.paths ?? []).filter((p): p is string => typeof p === 'string')
  if (ev.type === 'checkpoint') {
    const runId = ev.runId ?? ''
    const said = { paths, created: pathsOf(ev.created), deleted: [], same: [] }
    const existing = s.changes.find((c) => c.id === runId)
    const changes = existing
      ? s.changes.map((c) => (c.id === runId ? withEffects(c, said) : c))
      : [...s.changes, withEffects({ id: runId, kind: 'run', paths: [] }, said)]
    return { ...s, changes }
  }
  const id = ev.changeId ?? ''
  if (!id || s.changes.some((c) => c.id === id)) return s
  const reverts = ev.reverts ?? []
  const broughtBack = new Set<string>()
  if (ev.type === 'redo') for (const c of s.changes) if (reverts.includes(c.id)) for (const r of c.reverts ?? []) broughtBack.add(r)
  const changes = s.changes.map((c) =>
    reverts.includes(c.id) ? { ...c, revertedBy: id } : broughtBack.has(c.id) ? { ...c, revertedBy: '' } : c,
  )
  // as Go decides it (ofVersionNotShown): an undo of runs of versions not shown alone is theirs
  const otherVersion = reverts.length > 0 && reverts.every((r) => s.changes.find((c) => c.id === r)?.otherVersion)
  return { ...s, changes: [...changes, { id, kind: ev.type, paths, reverts, ...(otherVersion ? { otherVersion } : {}) }] }
}

/**
 * The card a keyboard decision applies to: the oldest one of the chat that waits for the user's
 * approval and has not been answered yet (`decided` holds the calls answered from the window).
 */
export function oldestWaitingCard(chat: ChatState | undefined, decided: Record<string, unknown>): ToolCard | null {
  if (!chat) return null
  for (const e of chat.timeline) {
    if (e.kind !== 'tool') continue
    const c = chat.tools[e.id]
    if (c?.state === 'awaiting_approval' && !decided[c.id]) return c
  }
  return null
}

/**
 * Whether Stop stops the chat's run and a message sent waits for it: while it is busy (as the
 * Go side says), and while a summary offer waits for its answer (the run goes on once it is
 * answered).
 */
export function isStoppable(chat: Pick<ChatState, 'busy' | 'phase'> | undefined): boolean {
  return !!chat && (chat.busy || chat.phase === 'awaiting_summary')
}

/** Whether the event was already applied to this chat. */
export function isDuplicate(state: ChatState, ev: AgentEvent): boolean {
  return ev.seq <= state.lastSeq && state.recentSeqs.includes(ev.seq)
}

function noteSeq(state: ChatState, seq: number): ChatState {
  const recent = state.recentSeqs.length >= recentWindow ? state.recentSeqs.slice(1) : state.recentSeqs.slice()
  recent.push(seq)
  return { ...state, lastSeq: Math.max(state.lastSeq, seq), recentSeqs: recent }
}

function eventTime(ev: AgentEvent): number {
  const t = Date.parse(ev.at)
  return Number.isNaN(t) ? Date.now() : t
}

/** A message as it starts: no text, no thinking, not complete. */
export function newMessage(id: string, role: MessageView['role'], runId: string): MessageView {
  return {
    id,
    role,
    runId,
    content: '',
    thinking: '',
    thinkingStartedAt: null,
    thinkingMs: null,
    complete: false,
    doneReason: '',
    usage: null,
    local: false,
  }
}

/** A tool card as it starts: no name or arguments yet, pending. */
export function newCard(id: string, messageId: string, runId: string): ToolCard {
  return {
    id,
    name: '',
    args: null,
    state: 'pending',
    messageId,
    runId,
    output: '',
    details: null,
    durationMs: null,
    approval: null,
    progress: null,
  }
}

// A message id for events that carry none: one per run, so its deltas still land together.
function messageIdOf(ev: AgentEvent): string {
  return ev.messageId || `run:${ev.runId ?? ''}`
}

function withMessage(
  state: ChatState,
  id: string,
  role: MessageView['role'],
  runId: string,
  update: (m: MessageView) => MessageView,
): ChatState {
  const existing = state.messages[id]
  if (existing) return { ...state, messages: { ...state.messages, [id]: update(existing) } }
  return {
    ...state,
    messages: { ...state.messages, [id]: update(newMessage(id, role, runId)) },
    timeline: [...state.timeline, { kind: 'message', id }],
  }
}

function withCard(state: ChatState, ev: AgentEvent, update: (c: ToolCard) => ToolCard): ChatState {
  const id = ev.toolCallId ?? ''
  const existing = state.tools[id]
  if (existing) return { ...state, tools: { ...state.tools, [id]: update(existing) } }
  const card = update(newCard(id, ev.messageId ?? '', ev.runId ?? ''))
  return { ...state, tools: { ...state.tools, [id]: card }, timeline: [...state.timeline, { kind: 'tool', id }] }
}

// The thought of a message ends with the first thing that is not thinking.
function endThinking(state: ChatState, ev: AgentEvent): ChatState {
  const m = ev.messageId ? state.messages[ev.messageId] : undefined
  if (!m || m.thinkingStartedAt === null || m.thinkingMs !== null) return state
  const ms = Math.max(0, eventTime(ev) - m.thinkingStartedAt)
  return { ...state, messages: { ...state.messages, [m.id]: { ...m, thinkingMs: ms } } }
}

function addNotice(state: ChatState, ev: AgentEvent, tone: 'error' | 'info', text: string, replaceId?: string, code?: string): ChatState {
  const id = replaceId ?? `notice:${ev.seq}`
  const timeline = state.timeline.filter((e) => e.id !== id || e.kind !== 'notice')
  const entry: TimelineEntry = code ? { kind: 'notice', id, tone, text, code } : { kind: 'notice', id, tone, text }
  return { ...state, timeline: [...timeline, entry] }
}

/** The id of the notice a run's retries show while Ollama does not answer. */
export function retryNoticeId(runId: string): string {
  return `retry:${runId}`
}

// Events that end a run's wait for Ollama: an answer started, or the run ended or failed.
const retryResolvers = new Set(['message.started', 'thinking.delta', 'text.delta', 'tool.call', 'error', 'run.finished'])

/** A retry notice goes once its retry resolved: the answer started, or the run ended. */
function dropRetryNotice(state: ChatState, ev: AgentEvent): ChatState {
  if (!ev.runId || !retryResolvers.has(ev.type)) return state
  const id = retryNoticeId(ev.runId)
  if (!state.timeline.some((e) => e.kind === 'notice' && e.id === id)) return state
  return { ...state, timeline: state.timeline.filter((e) => e.kind !== 'notice' || e.id !== id) }
}

/**
 * The server answers again: each notice saying it was away becomes the notice of the message it
 * left unanswered (with Retry), so that no message is left without a word on why.
 */
export function serverBack(state: ChatState): ChatState {
  if (!state.timeline.some((e) => e.kind === 'notice' && e.code && codeOnceBack(e.code) !== e.code)) return state
  const timeline = state.timeline.map((e) => (e.kind === 'notice' && e.code ? { ...e, code: codeOnceBack(e.code) } : e))
  return { ...state, timeline }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : ''
}

// The state a tool.call event announces; an unknown one is shown as queued.
function callState(state: unknown): ToolVisualState {
  return state === 'running' || state === 'awaiting_approval' ? state : 'pending'
}

function seconds(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10000 ? 1 : 0)} s`
}

/** Applies one event. Pure: returns a new state, or the same one when nothing changes. */
export function reduceChat(state: ChatState, ev: AgentEvent): ChatState {
  if (isDuplicate(state, ev)) return state
  const late = ev.seq < state.lastSeq
  let s = dropRetryNotice(noteSeq(state, ev.seq), ev)
  const runId = ev.runId ?? ''
  switch (ev.type) {
    case 'run.started': {
      // a run resumed after an approval continues the change of the run it resumes (changeId),
      // which takes its id: one run, one change
      const from = ev.changeId ?? ''
      const changes = from ? s.changes.map((c) => (c.id === from && c.kind === 'run' ? { ...c, id: runId } : c)) : s.changes
      const next = changes === s.changes ? s : { ...s, changes }
      return late ? next : { ...next, runId }
    }

    case 'phase':
      // An unknown phase (from a newer Go side) is ignored rather than shown as a state.
      if (!ev.phase || checkPhase(ev.phase) !== ev.phase || late || ev.seq < s.phaseSeq) return s
      return { ...s, phase: ev.phase, busy: ev.busy === true, phaseSeq: ev.seq }

    case 'message.started': {
      const role = checkRole(ev.role)
      const id = messageIdOf(ev)
      if (role === 'user' && !s.messages[id]) {
        // The window already shows what the user typed: bind that message to its real id.
        const local = s.timeline.find((e) => e.kind === 'message' && s.messages[e.id]?.local && e.id.startsWith('local:'))
        if (local) return rebindMessage(s, local.id, id)
      }
      if (role === 'system' && ev.kind === 'summary') {
        return withMessage(s, id, role, runId, (m) => ({ ...m, summary: true }))
      }
      if (role === 'system') {
        // The project instructions of the chat's first turn: shown first, before the user's message.
        const shown = withMessage(s, id, role, runId, (m) => ({ ...m, instructions: str(ev.name) || 'AGENTS.md' }))
        if (shown === s || s.messages[id]) return shown
        const entry = shown.timeline[shown.timeline.length - 1]
        return { ...shown, timeline: [entry, ...shown.timeline.slice(0, -1)] }
      }
      return withMessage(s, id, role, runId, (m) => m)
    }

    case 'thinking.delta':
      // The answer started: the model is loaded (model.loaded, with the load time, comes at its end).
      s = s.loadingModel ? { ...s, loadingModel: null } : s
      return withMessage(s, messageIdOf(ev), 'assistant', runId, (m) =>
        m.local
          ? m
          : {
              ...m,
              thinking: m.thinking + (ev.text ?? ''),
              thinkingStartedAt: m.thinkingStartedAt ?? eventTime(ev),
            },
      )

    case 'text.delta':
      s = endThinking(s.loadingModel ? { ...s, loadingModel: null } : s, ev)
      return withMessage(s, messageIdOf(ev), 'assistant', runId, (m) =>
        m.local ? m : { ...m, content: m.content + (ev.text ?? '') },
      )

    case 'tool.call':
      s = endThinking(s, ev)
      return withCard(s, ev, (c) => ({
        ...c,
        name: ev.name || c.name,
        args: ev.args !== undefined ? ev.args : c.args,
        state: terminalToolStates.has(c.state) || late ? c.state : callState(ev.state),
        recovered: c.recovered || ev.recovered === true || ev.origin === 'text',
      }))

    case 'tool.approval_requested':
      return withCard(s, ev, (c) => ({
        ...c,
        preview: checkPreview(ev.preview) ?? c.preview ?? null,
        name: ev.name || c.name,
        args: ev.args !== undefined ? ev.args : c.args,
        state: terminalToolStates.has(c.state) || c.state === 'running' ? c.state : 'awaiting_approval',
        approval: c.approval ?? { decision: '', by: str(ev.by), reason: str(ev.reason) },
      }))

    case 'tool.approval_resolved':
      return withCard(s, ev, (c) => ({
        ...c,
        approval: checkApproval(ev) ?? c.approval,
        state:
          ev.decision === 'deny'
            ? c.state === 'completed' || c.state === 'failed' || c.state === 'not_run' || c.state === 'stopped'
              ? c.state
              : 'denied'
            : c.state === 'awaiting_approval'
              ? 'pending'
              : c.state,
      }))

    case 'tool.progress':
      return withCard(s, ev, (c) => ({ ...c, progress: ev.update ?? null }))

    case 'tool.output': {
      const stream = ev.stream === 'stderr' ? 'stderr' : 'stdout'
      if (!ev.text) return s
      return withCard(s, ev, (c) => ({ ...c, commandOutput: appendOutput(c.commandOutput ?? emptyOutput, stream, ev.text ?? '') }))
    }

    case 'tool.result':
      return withCard(leftByCall(s, ev), ev, (c) => ({
        ...c,
        output: str(ev.output),
        details: checkDetails(ev.details) ?? c.details,
        durationMs: typeof ev.durationMs === 'number' ? ev.durationMs : c.durationMs,
        state:
          c.state === 'denied' ? 'denied' : ev.notRun ? 'not_run' : ev.ok ? 'completed' : ev.stopped ? 'stopped' : 'failed',
        recovered: c.recovered || ev.recovered === true,
        notRun: ev.notRun || c.notRun,
      }))

    case 'message.completed': {
      s = endThinking(s, ev)
      const id = messageIdOf(ev)
      return withMessage(s, id, 'assistant', runId, (m) => ({
        ...m,
        complete: true,
        doneReason: str(ev.doneReason),
        usage: checkUsage(ev.usage) ?? m.usage,
        empty: ev.empty === true,
      }))
    }

    case 'context.truncated':
      return addNotice(
        s,
        ev,
        'info',
        `Earlier messages were left out to fit the context: ${ev.droppedMessages ?? 0} dropped, about ${tokenCount(ev.estimatedTokens ?? 0)} of ${tokenCount(ev.numCtx ?? 0)} tokens used.`,
      )

    case 'context.summary_offered': {
      const id = str(ev.offerId) || `offer_${runId}`
      if (s.offers[id]) return s
      const offer: OfferView = { id, runId, text: str(ev.message), choice: '' }
      return { ...s, offers: { ...s.offers, [id]: offer }, timeline: [...s.timeline, { kind: 'offer', id }] }
    }

    case 'context.summary_answered': {
      const offer = s.offers[str(ev.offerId)]
      const choice = checkSummaryChoice(ev.choice)
      if (!offer || !choice) return s
      return { ...s, offers: { ...s.offers, [offer.id]: { ...offer, choice } } }
    }

    case 'context.cut':
      return addNotice(s, ev, 'error', ev.message || 'The conversation did not fit the model\'s context: the model did not see all of it.')

    case 'retry':
      return addNotice(
        s,
        ev,
        'info',
        `Ollama is not answering yet; trying again in ${seconds(ev.delayMs ?? 0)} (attempt ${ev.attempt ?? 1}).`,
        retryNoticeId(runId),
      )

    case 'error':
      return addNotice(s, ev, 'error', ev.message || ev.code || 'The run failed.', undefined, ev.code || 'unknown')

    case 'model.loading':
      // Announced when the request goes out (the server said the model is not in memory), or
      // a second later when the server could not say: counted from the announcement.
      return late ? s : { ...s, loadingModel: { model: str(ev.model), since: eventTime(ev) } }

    case 'model.loaded':
      return s.loadingModel ? { ...s, loadingModel: null } : s

    case 'checkpoint': {
      const notUndoable = (ev.notUndoable ?? []).filter((p): p is string => typeof p === 'string')
      const next = applyChange(s, ev)
      return notUndoable.length > 0 && ev.toolCallId ? withCard(next, ev, (c) => ({ ...c, notUndoable })) : next
    }

    case 'undo':
    case 'redo':
      return undoneAsGoSays(applyChange(s, ev), ev)

    case 'run.finished':
      return finishRun(s.loadingModel ? { ...s, loadingModel: null } : s, ev)
  }
  return s
}

/** What the chat says where the user stopped a run (the notice offers Continue and Regenerate). */
export const stoppedText = 'Stopped.'

const stopNotices: Partial<Record<StopReason, string>> = {
  aborted: stoppedText,
  max_steps: 'Stopped at the step limit. Send a message to continue.',
  length: 'The answer reached the context length and was cut off.',
  loop: 'Stopped: the model kept repeating the same calls. Send a message to steer it.',
}

// At the end of a run nothing of it can still be running: open cards become interrupted (except
// those waiting for the user), open messages are closed so their thoughts fold.
function finishRun(s: ChatState, ev: AgentEvent): ChatState {
  const runId = ev.runId ?? ''
  const tools = { ...s.tools }
  let changed = false
  for (const c of Object.values(s.tools)) {
    if (c.runId !== runId || terminalToolStates.has(c.state)) continue
    if (ev.stopReason === 'awaiting_approval' && c.state === 'awaiting_approval') continue
    tools[c.id] = { ...c, state: 'interrupted' }
    changed = true
  }
  const messages = { ...s.messages }
  for (const m of Object.values(s.messages)) {
    if (m.runId === runId && !m.complete) {
      const thinkingMs =
        m.thinkingMs ?? (m.thinkingStartedAt !== null ? Math.max(0, eventTime(ev) - m.thinkingStartedAt) : null)
      messages[m.id] = { ...m, complete: true, thinkingMs }
      changed = true
    }
  }
  const next: ChatState = changed ? { ...s, tools, messages } : s
  const notice = stopNotice(ev.stopReason, ev.message)
  return notice ? addNotice(next, ev, notice.tone, notice.text, undefined, ev.code) : next
}

/**
 * The code of the sentence that ends a run whose model answered nothing, also when asked again
 * (agentloop.CodeEmptyAnswer, on run.finished and on the run's kept note).
 */
export const emptyAnswerCode = 'empty_answer'

/**
 * What the chat says when a run ends (run.finished's stop reason and message, live or kept with
 * the run): a run stopped as a loop names the call it repeated; a completed run says what went
 * wrong when there is something (a model that answered nothing).
 */
export function stopNotice(stopReason: string | undefined, message: string | undefined): { tone: 'error' | 'info'; text: string } | null {
  const text = stopReason === 'loop' ? message || stopNotices.loop : stopReason && stopNotices[stopReason as StopReason]
  if (text) return { tone: stopReason === 'aborted' ? 'info' : 'error', text }
  if (stopReason === 'completed' && message) return { tone: 'info', text: message }
  return null
}

/**
 * The sentences the runs said besides their messages (kept with each run), where the live view
 * showed them: a notice during a run (tools it could not offer) before its answer, the sentence
 * that ended it after its last message or card. A run none of whose entries is shown (an
 * earlier version of the history) says nothing.
 */
function withNotes(timeline: TimelineEntry[], notes: CheckedNote[], runOf: (e: TimelineEntry) => string, isUser: (e: TimelineEntry) => boolean): TimelineEntry[] {
  let out = timeline
  notes.forEach((n, i) => {
    // the error that failed a run is said as it was (a server away then: the message unanswered)
    const failed = n.stopReason === 'error'
    const view = n.stopReason && !failed ? stopNotice(n.stopReason, n.message) : { tone: 'error' as const, text: n.message }
    const at = out.flatMap((e, k) => (e.kind !== 'notice' && e.kind !== 'offer' && runOf(e) === n.runId ? [k] : []))
    if (n.offer && at.length === 0 && !n.offer.choice) {
      out = [...out, { kind: 'offer', id: n.offer.id }] // the offer waits: the chat's end
      return
    }
    if (!view || at.length === 0) return
    // an offer (made before a request, possibly mid-run) follows everything its run did before it
    const before = n.stopReason || n.offer ? -1 : at.find((k) => !isUser(out[k])) ?? -1
    const pos = before >= 0 ? before : at[at.length - 1] + 1
    const entry: TimelineEntry = n.offer
      ? { kind: 'offer', id: n.offer.id }
      : { kind: 'notice', id: `note:${n.runId}:${i}`, tone: view.tone, text: view.text }
    if (n.code && entry.kind === 'notice') entry.code = failed ? codeOnceBack(n.code) : n.code
    out = [...out.slice(0, pos), entry, ...out.slice(pos)]
  })
  return out
}

function rebindMessage(s: ChatState, from: string, to: string): ChatState {
  const m = s.messages[from]
  const messages = { ...s.messages }
  delete messages[from]
  messages[to] = { ...m, id: to }
  return {
    ...s,
    messages,
    timeline: s.timeline.map((e) => (e.kind === 'message' && e.id === from ? { kind: 'message', id: to } : e)),
  }
}

/** Shows a card as running before its result is applied (see the store's paint guarantee). */
export function markRunning(s: ChatState, ev: AgentEvent): ChatState {
  return withCard(s, ev, (c) => ({ ...c, name: c.name || ev.name || '', state: 'running' }))
}

/** A user message typed in this window, shown before the Go side has stored it. */
export function addLocalUserMessage(s: ChatState, id: string, content: string, atStart = false, images: string[] = []): ChatState {
  const m: MessageView = { ...newMessage(id, 'user', ''), content, complete: true, local: true }
  if (images.length > 0) m.images = images
  const entry: TimelineEntry = { kind: 'message', id }
  return {
    ...s,
    messages: { ...s.messages, [id]: m },
    timeline: atStart ? [entry, ...s.timeline] : [...s.timeline, entry],
  }
}

const toolVisualStates: ReadonlySet<string> = new Set<ToolVisualState>([
  'pending',
  'running',
  'awaiting_approval',
  ...terminalToolStates,
])

/**
 * The state a stored call's card is drawn in: the one the Go side gives it (OpenedChat.toolStates,
 * agentloop.RecordState, which owns the rule). A record it names no known state for says
 * nothing of its result: it is drawn interrupted, never running.
 */
function stateOfRecord(id: string, toolStates: Record<string, string>): ToolVisualState {
  const state = toolStates[id]
  return state && toolVisualStates.has(state) ? (state as ToolVisualState) : 'interrupted'
}

function cardOfRecord(r: CheckedToolCall, state: ToolVisualState): ToolCard {
  return {
    id: r.id,
    name: r.name,
    args: r.args,
    state,
    messageId: r.messageId,
    runId: r.runId,
    output: r.output,
    details: r.details,
    durationMs: r.pending ? null : r.durationMs,
    approval: r.approval && r.approval.decision ? { ...r.approval } : null,
    progress: null,
    restored: true,
    preview: r.preview,
    recovered: r.recovered,
    notRun: r.notRun || undefined,
  }
}

function messageOfRecord(m: CheckedMessage, empty: boolean): MessageView {
  return {
    id: m.id,
    role: m.role,
    runId: m.runId,
    content: m.content,
    thinking: m.thinking,
    thinkingStartedAt: null,
    thinkingMs: m.thinking ? m.thinkingMs : null,
    complete: true,
    doneReason: m.doneReason,
    usage: m.usage,
    local: false,
    empty,
    instructions: m.instructions || undefined,
    images: m.images.length > 0 ? m.images : undefined,
    summary: m.summaryOf ? true : undefined,
    files: m.files.length > 0 ? m.files : undefined,
  }
}

/** The note under a persisted answer whose stream did not finish and whose run is gone. */
export const stoppedBeforeTheEnd = 'Stopped before the end.'

/** The note under an answer the app's quitting or death cut short, not the user's Stop. */
export const cutShortText = 'Cut short: the app closed before the answer ended.'

/** What is said under an answer run `runId` left unfinished, by who stopped it (OpenedChat.stoppedRuns). */
function unfinishedText(interruptedRuns: Map<string, boolean>, runId: string): string {
  const interrupted = interruptedRuns.get(runId)
  if (interrupted === undefined) return stoppedBeforeTheEnd // a run that failed: its note says why
  return interrupted ? cutShortText : stoppedText
}

const stoppedRunPrefix = 'stopped-run:'

/** The id of the notice that ends a chat whose last run was cut short (OpenedChat.stopped). */
export function stoppedRunNoticeId(runId: string): string {
  return stoppedRunPrefix + runId
}

/** Whether a notice is the one that ends a chat whose last run was cut short. */
export function isStoppedRunNotice(id: string): boolean {
  return id.startsWith(stoppedRunPrefix)
}

/**
 * Whether an entry is a stopped run's notice (the live run's "Stopped.", or the one ending a chat
 * whose last run was cut short): the one that, at the chat's end, offers Continue and Regenerate.
 */
export function isStoppedNotice(e: TimelineEntry): boolean {
  return e.kind === 'notice' && e.tone === 'info' && (e.text === stoppedText || isStoppedRunNotice(e.id))
}

/**
 * The chat as the store has it: messages in order, each assistant message followed by the cards
 * of its tool calls (in the order the store recorded them). Tool-role messages are not shown
 * (their content is the card's output). An answer stored incomplete without a live run to
 * finish it is followed by a "Stopped before the end." notice. Whatever arrived is checked
 * first (state/records.ts): a missing or malformed field never stops the chat from opening.
 */
export function chatFromSnapshot(raw: OpenedChat | unknown, chatId = ''): ChatState {
  const opened = checkOpenedChat(raw, chatId)
  const waits = opened.phase === 'awaiting_approval' || opened.phase === 'awaiting_summary'
  const current = !!opened.liveRunId || waits
  const phase = current ? opened.phase : 'idle'
  const s = emptyChat(opened.chatId)
  const records = opened.toolCalls
  const byMessage = new Map<string, CheckedToolCall[]>()
  for (const r of records) {
    const list = byMessage.get(r.messageId) ?? []
    list.push(r)
    byMessage.set(r.messageId, list)
  }
  const byId = new Map(records.map((r) => [r.id, r]))
  const placed = new Set<string>()
  const messages: Record<string, MessageView> = {}
  const tools: Record<string, ToolCard> = {}
  const timeline: TimelineEntry[] = []
  const place = (r: CheckedToolCall) => {
    if (placed.has(r.id)) return
    placed.add(r.id)
    tools[r.id] = cardOfRecord(r, stateOfRecord(r.id, opened.toolStates))
    timeline.push({ kind: 'tool', id: r.id })
  }
  const shown = opened.messages.filter((m) => m.role !== 'tool' && (m.role !== 'system' || m.instructions || m.summaryOf))
  const lastAssistant = shown.filter((m) => m.role === 'assistant').pop()
  for (const m of shown) {
    if (messages[m.id]) continue // a duplicate id: the first one is shown
    messages[m.id] = messageOfRecord(m, opened.emptyAnswers.has(m.id))
    timeline.push({ kind: 'message', id: m.id })
    for (const call of m.toolCalls) {
      const r = byId.get(call.id)
      if (r) place(r)
    }
    for (const r of byMessage.get(m.id) ?? []) place(r)
    // A partial answer whose run is gone says so, as the live view did with "Stopped.", and who
    // stopped it. The
    // last answer of a chat with a live run may still be streaming.
    const live = !!opened.liveRunId && m === lastAssistant
    if (m.role === 'assistant' && !m.complete && !live && m.runId !== opened.stopped?.runId) {
      timeline.push({ kind: 'notice', id: `stopped:${m.id}`, tone: 'info', text: unfinishedText(opened.interruptedRuns, m.runId) })
    }
  }
  for (const r of records) place(r)
  // The last run cut short ends the chat with the notice that offers Continue and Regenerate.
  const stop = opened.stopped
  if (stop) timeline.push({ kind: 'notice', id: stoppedRunNoticeId(stop.runId), tone: 'info', text: stop.interrupted ? cutShortText : stoppedText })
  const noted = withNotes(
    timeline,
    opened.notes,
    (e) => (e.kind === 'message' ? messages[e.id]?.runId : tools[e.id]?.runId) ?? '',
    (e) => e.kind === 'message' && messages[e.id]?.role === 'user',
  )
  const offers: Record<string, OfferView> = {}
  for (const n of opened.notes) {
    if (n.offer) offers[n.offer.id] = { id: n.offer.id, runId: n.runId, text: n.message, choice: n.offer.choice }
  }
  return {
    ...s,
    phase,
    busy: current && opened.busy,
    runId: opened.liveRunId,
    messages,
    tools,
    timeline: noted,
    loaded: true,
    changes: opened.changes,
    offers,
    undoneRuns: opened.undoneRuns,
  }
}

/**
 * Joins the persisted history with what the window saw live before it was opened. Live wins for
 * what it has seen from the start (a message whose start event arrived, every tool card); the
 * rest comes from the store.
 */
export function mergeLive(snapshot: ChatState, live: ChatState | undefined): ChatState {
  if (!live) return snapshot
  const messages = { ...snapshot.messages }
  const tools = { ...snapshot.tools }
  const offers = { ...snapshot.offers }
  const timeline = [...snapshot.timeline]
  const has = new Set(timeline.map((e) => `${e.kind}:${e.id}`))
  // a sentence the store kept (a run's notes) is the one the window saw live
  const saidNotices = new Set(timeline.flatMap((e) => (e.kind === 'notice' ? [`${e.tone}:${e.text}`] : [])))
  const snapshotUserTexts = new Set(
    Object.values(snapshot.messages)
      .filter((m) => m.role === 'user')
      .map((m) => m.content),
  )
  for (const e of live.timeline) {
    if (e.kind === 'message') {
      const lm = live.messages[e.id]
      const sm = snapshot.messages[e.id]
      if (lm.local && (sm || snapshotUserTexts.has(lm.content))) continue
      messages[e.id] = sm && !lm.content.startsWith(sm.content) ? { ...lm, content: sm.content + lm.content } : lm
    } else if (e.kind === 'tool') {
      tools[e.id] = live.tools[e.id]
    } else if (e.kind === 'offer') {
      offers[e.id] = live.offers[e.id].choice || !offers[e.id] ? live.offers[e.id] : offers[e.id]
    } else if (saidNotices.has(`${e.tone}:${e.text}`)) {
      continue
    }
    const key = `${e.kind}:${e.id}`
    if (!has.has(key)) {
      has.add(key)
      timeline.push(e)
    }
  }
  const livePhase = live.phaseSeq > 0
  return {
    ...snapshot,
    phase: livePhase ? live.phase : snapshot.phase,
    busy: livePhase ? live.busy : snapshot.busy,
    phaseSeq: live.phaseSeq,
    runId: live.runId || snapshot.runId,
    loadingModel: live.loadingModel,
    lastSeq: live.lastSeq,
    recentSeqs: live.recentSeqs,
    messages,
    tools,
    offers,
    timeline,
    loaded: true,
    changes: mergeChanges(snapshot.changes, live.changes),
  }
}

// The store's checkpoints, with what the live events added or marked since.
function mergeChanges(snapshot: ChangeSummary[], live: ChangeSummary[]): ChangeSummary[] {
  const out = snapshot.map((c) => {
    const l = live.find((x) => x.id === c.id)
    if (!l) return c
    const paths = [...(c.paths ?? []), ...(l.paths ?? []).filter((p) => !c.paths?.includes(p))]
    const either = (a: string[] | null | undefined, b: string[] | null | undefined) => [...new Set([...(a ?? []), ...(b ?? [])])]
    return { ...c, paths, created: either(c.created, l.created), deleted: either(c.deleted, l.deleted), revertedBy: l.revertedBy ?? c.revertedBy }
  })
  for (const l of live) if (!out.some((c) => c.id === l.id)) out.push(l)
  return out
}
