// What the Go side returns, checked before the window uses it. A record may lack any field that
// Go omits when empty (a call rejected at argument validation has no startedAt, a message no
// thinking), may come from an older version of the app, or may hold a value of another type
// than expected (arguments a model sent as a string). Each function here takes whatever arrived
// and returns a complete value with a safe default for everything missing or malformed, so that
// the reducer and the components never meet an undefined where they expect a string.

import type {
  ChangeSummary,
  CommandDetails,
  CommandPreview,
  Decision,
  Phase,
  Preview,
  Removal,
  Role,
  StopReason,
  SummaryChoice,
  ToolDetails,
  Usage,
} from '../backend'

// The members of the Phase and Role types, as values. A Record over the type makes the compiler
// hold each list to the type's definition in backend.ts: a member missing or unknown fails.
const phases: ReadonlySet<string> = new Set(
  Object.keys({
    idle: true,
    submitted: true,
    streaming: true,
    tools: true,
    continuing: true,
    awaiting_approval: true,
    awaiting_summary: true,
  } satisfies Record<Phase, true>),
)
const roles: ReadonlySet<string> = new Set(
  Object.keys({ system: true, user: true, assistant: true, tool: true } satisfies Record<Role, true>),
)

type Obj = Record<string, unknown>

export function isObject(v: unknown): v is Obj {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : typeof v === 'number' && Number.isFinite(v) ? String(v) : ''
}

function num(v: unknown): number | null {
  return typeof v === 'number' && Number.isFinite(v) ? v : null
}

function bool(v: unknown): boolean {
  return v === true
}

/** A known run phase, else idle. */
export function checkPhase(v: unknown): Phase {
  return typeof v === 'string' && phases.has(v) ? (v as Phase) : 'idle'
}

/** A role the window knows, else assistant (its text is shown rather than lost). */
export function checkRole(v: unknown): Role {
  return typeof v === 'string' && roles.has(v) ? (v as Role) : 'assistant'
}

/** A JSON object, whether it arrived parsed or as JSON text; null for anything else. */
export function jsonObject(v: unknown): Obj | null {
  let o = v
  if (typeof o === 'string') {
    try {
      o = JSON.parse(o)
    } catch {
      return null
    }
  }
  return isObject(o) ? o : null
}

/** An RFC 3339 time, or '' when missing, unreadable or Go's zero time. */
export function checkTime(v: unknown): string {
  if (typeof v !== 'string' || !v || v.startsWith('0001-')) return ''
  return Number.isNaN(Date.parse(v)) ? '' : v
}

/** What a tool reported for the window, keeping only fields of the expected types. */
export function checkDetails(v: unknown): ToolDetails | null {
  const d = jsonObject(v)
  if (!d) return null
  const out: ToolDetails = {}
  if (typeof d.path === 'string') out.path = d.path
  if (num(d.bytes) !== null) out.bytes = d.bytes as number
  if (typeof d.created === 'boolean') out.created = d.created
  if (typeof d.changed === 'boolean') out.changed = d.changed
  if (typeof d.diff === 'string') out.diff = d.diff
  const command = checkCommandDetails(d.command)
  if (command) out.command = command
  return out
}

/** How a command ended and what it changed, as far as it can be read. */
export function checkCommandDetails(v: unknown): CommandDetails | null {
  if (!isObject(v)) return null
  return {
    exitCode: num(v.exitCode) ?? 0,
    durationMs: num(v.durationMs) ?? 0,
    timedOut: bool(v.timedOut),
    network: bool(v.network),
    outputBytes: num(v.outputBytes) ?? 0,
    cutBytes: num(v.cutBytes) ?? 0,
    unconfined: bool(v.unconfined),
    changes: (Array.isArray(v.changes) ? v.changes : [])
      .filter(isObject)
      .filter((c) => str(c.path))
      .map((c) => ({ path: str(c.path), kind: str(c.kind), bytes: num(c.bytes) ?? 0, diff: str(c.diff) })),
    notUndoable: strings(v.notUndoable),
    moreChanges: num(v.moreChanges) ?? 0,
    refused: strings(v.refused),
  }
}

/** The command a waiting run_command call would run, when it names one. */
export function checkCommandPreview(v: unknown): CommandPreview | null {
  if (!isObject(v) || typeof v.command !== 'string') return null
  return { command: v.command, cwd: str(v.cwd), pattern: str(v.pattern), ...(v.keepsRunning === true ? { keepsRunning: true } : {}) }
}

export function checkUsage(v: unknown): Usage | null {
  if (!isObject(v)) return null
  const u: Usage = {}
  for (const k of ['promptTokens', 'evalTokens', 'evalMs', 'tokensPerSec', 'promptMs', 'promptTokensPerSec', 'firstTokenMs', 'numCtx', 'contextTokens'] as const) {
    const n = num(v[k])
    if (n !== null) u[k] = n
  }
  return u
}

export interface CheckedApproval {
  decision: Decision | ''
  by: string
  reason: string
}

export function checkApproval(v: unknown): CheckedApproval | null {
  if (!isObject(v)) return null
  const decision = v.decision === 'allow' || v.decision === 'deny' ? v.decision : ''
  return { decision, by: str(v.by), reason: str(v.reason) }
}

/** A tool-call record with every field present. */
export interface CheckedToolCall {
  id: string
  chatId: string
  runId: string
  messageId: string
  name: string
  /** As sent: an object, or whatever the model wrote (a string, a number…). */
  args: unknown
  awaitingApproval: boolean
  pending: boolean
  ok: boolean
  output: string
  details: ToolDetails | null
  /** '' when the call never started. */
  startedAt: string
  /** '' while it has not finished. */
  finishedAt: string
  durationMs: number | null
  approval: CheckedApproval | null
  preview: Preview | null
  /** The model wrote the call as text (origin 'text'; recovered in a record stored before origins). */
  recovered: boolean
  /** Why the call did not run (a NotRunReason, or one a newer Go side knows); '' for a call that ran, failed or was denied. */
  notRun: string
  /** The call was running when the user stopped its run: neither completed nor failed. */
  stopped: boolean
}

const strings = (v: unknown): string[] => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [])

/** The change a call would make, as far as it can be read. */
export function checkPreview(v: unknown): Preview | null {
  if (!isObject(v)) return null
  const command = checkCommandPreview(v.command)
  if (typeof v.path !== 'string' && !command) return null
  const removes: Removal[] = (Array.isArray(v.removes) ? v.removes : [])
    .filter(isObject)
    .map((r) => ({ path: str(r.path), kind: str(r.kind), bytes: num(r.bytes) ?? 0 }))
  return {
    path: str(v.path),
    diff: str(v.diff),
    bytes: num(v.bytes) ?? 0,
    created: bool(v.created),
    ...(bool(v.unchanged) ? { unchanged: true } : {}),
    removes,
    notUndoable: strings(v.notUndoable),
    ...(str(v.fails) ? { fails: str(v.fails) } : {}),
    ...(command ? { command } : {}),
  }
}

/** A chat's checkpoint, as far as it can be read. */
export function checkChange(v: unknown): ChangeSummary | null {
  if (!isObject(v) || !str(v.id)) return null
  return {
    id: str(v.id),
    kind: str(v.kind),
    paths: strings(v.paths),
    created: strings(v.created),
    deleted: strings(v.deleted),
    reverts: strings(v.reverts),
    revertedBy: str(v.revertedBy),
    ...(v.otherVersion === true ? { otherVersion: true } : {}),
  }
}

export function checkToolCall(v: unknown): CheckedToolCall | null {
  if (!isObject(v)) return null
  const id = str(v.id)
  if (!id) return null
  return {
    id,
    chatId: str(v.chatId),
    runId: str(v.runId),
    messageId: str(v.messageId),
    name: str(v.name),
    args: v.args === undefined ? null : v.args,
    awaitingApproval: bool(v.awaitingApproval),
    pending: bool(v.pending),
    ok: bool(v.ok),
    output: str(v.output),
    details: checkDetails(v.details),
    startedAt: checkTime(v.startedAt),
    finishedAt: checkTime(v.finishedAt),
    durationMs: num(v.durationMs),
    approval: checkApproval(v.approval),
    preview: checkPreview(v.preview),
    recovered: bool(v.recovered) || v.origin === 'text',
    notRun: str(v.notRun),
    stopped: bool(v.stopped),
  }
}

const stopReasons: ReadonlySet<string> = new Set<StopReason>(['completed', 'max_steps', 'aborted', 'error', 'awaiting_approval', 'length', 'loop', 'awaiting_summary'])
const summaryChoices: ReadonlySet<string> = new Set<SummaryChoice>(['summarize', 'leave_out', 'none'])

/** A summary offer's answer the window knows, else '' (it waits). */
export function checkSummaryChoice(v: unknown): SummaryChoice | '' {
  return typeof v === 'string' && summaryChoices.has(v) ? (v as SummaryChoice) : ''
}

/** A sentence a run said besides its messages, with its run. */
export interface CheckedNote {
  runId: string
  /** Set on the sentence that ended the run. */
  stopReason: StopReason | ''
  code: string
  message: string
  /** The summary offer the sentence is, with its answer ('' while it waits). */
  offer?: { id: string; choice: SummaryChoice | '' }
}

export function checkNote(v: unknown): CheckedNote | null {
  if (!isObject(v) || !str(v.runId) || !str(v.message)) return null
  const stop = str(v.stopReason)
  const note: CheckedNote = { runId: str(v.runId), stopReason: stopReasons.has(stop) ? (stop as StopReason) : '', code: str(v.code), message: str(v.message) }
  if (isObject(v.offer) && str(v.offer.id)) note.offer = { id: str(v.offer.id), choice: checkSummaryChoice(v.offer.choice) }
  return note
}

/** A call as an assistant message lists it. */
export interface CheckedCallRef {
  id: string
  name: string
  args: unknown
}

/** A stored message with every field present. */
export interface CheckedMessage {
  id: string
  runId: string
  role: Role
  content: string
  thinking: string
  thinkingMs: number
  toolCalls: CheckedCallRef[]
  toolCallId: string
  complete: boolean
  doneReason: string
  usage: Usage | null
  /** Where the project instructions a system message shows came from; '' for any other message. */
  instructions: string
  /** Images sent with the message (base64). */
  images: string[]
  /** On a summary: the id of the last message it stands for; '' otherwise. */
  summaryOf: string
  /** Files the message named with @path. */
  files: { path: string; content: string }[]
}

export function checkMessage(v: unknown): CheckedMessage | null {
  if (!isObject(v)) return null
  const id = str(v.id)
  if (!id) return null
  const calls = Array.isArray(v.toolCalls) ? v.toolCalls : []
  return {
    id,
    runId: str(v.runId),
    role: checkRole(v.role),
    content: str(v.content),
    thinking: str(v.thinking),
    thinkingMs: num(v.thinkingMs) ?? 0,
    toolCalls: calls.filter(isObject).map((c) => ({ id: str(c.id), name: str(c.name), args: c.args ?? null })),
    toolCallId: str(v.toolCallId),
    // A message stored before the field existed was complete.
    complete: v.complete === undefined ? true : bool(v.complete),
    doneReason: str(v.doneReason),
    usage: checkUsage(v.usage),
    instructions: str(v.instructions),
    images: Array.isArray(v.images) ? v.images.filter((i): i is string => typeof i === 'string') : [],
    summaryOf: str(v.summaryOf),
    files: Array.isArray(v.files)
      ? v.files.filter(isObject).map((f) => ({ path: str(f.path), content: str(f.content) }))
      : [],
  }
}

/** A chat as OpenChat returns it, with every field present and unreadable items left out. */
export interface CheckedOpenedChat {
  chatId: string
  messages: CheckedMessage[]
  toolCalls: CheckedToolCall[]
  phase: Phase
  /** Whether the phase is a busy one, as the Go side says (events.Phase.Busy). */
  busy: boolean
  liveRunId: string
  /** The state of each tool call's card, by call id, as the Go side decided it (agentloop.RecordState). */
  toolStates: Record<string, string>
  /** The answers the Go side says are empty answers (agentloop.IsEmptyAnswer), by id. */
  emptyAnswers: Set<string>
  changes: ChangeSummary[]
  notes: CheckedNote[]
  /** For each run whose changes stand undone, the line its answer carries (agentloop.UndoneOf). */
  undoneRuns: Record<string, string>
  /** The chat's last run, when it was cut short and can be continued (agentloop.StoppedRun). */
  stopped: { runId: string; interrupted: boolean } | null
  /** Of each run shown that ended before its end, by id: whether it was cut short, not stopped by the user. */
  interruptedRuns: Map<string, boolean>
}

export function checkOpenedChat(v: unknown, fallbackId = ''): CheckedOpenedChat {
  const o = isObject(v) ? v : {}
  const chat = isObject(o.chat) ? o.chat : {}
  const list = <T>(items: unknown, check: (x: unknown) => T | null): T[] =>
    (Array.isArray(items) ? items : []).map(check).filter((x): x is T => x !== null)
  return {
    chatId: str(chat.id) || fallbackId,
    messages: list(o.messages, checkMessage),
    toolCalls: list(o.toolCalls, checkToolCall),
    phase: checkPhase(o.phase),
    busy: o.busy === true,
    liveRunId: str(o.liveRunId),
    toolStates: stringMap(o.toolStates),
    emptyAnswers: new Set(strings(o.emptyAnswers)),
    changes: list(o.changes, checkChange),
    notes: list(o.notes, checkNote),
    undoneRuns: stringMap(o.undoneRuns),
    stopped: isObject(o.stopped) && str(o.stopped.runId) ? { runId: str(o.stopped.runId), interrupted: o.stopped.interrupted === true } : null,
    interruptedRuns: new Map(
      (Array.isArray(o.stoppedRuns) ? o.stoppedRuns : []).filter((r) => isObject(r) && str(r.runId)).map((r) => [str(r.runId), r.interrupted === true]),
    ),
  }
}

/** An object's string values by key; anything else is left out. */
export function stringMap(v: unknown): Record<string, string> {
  return isObject(v) ? Object.fromEntries(Object.entries(v).filter((e): e is [string, string] => typeof e[1] === 'string')) : {}
}
