// The contract between the window and the Go side: the App methods bound by Wails, the event
// envelope of "agent:batch", and the records the store returns. Field names match the JSON tags
// of the Go structs; a field Go writes with omitempty or omitzero is optional here.
//
// The types are written here rather than imported from the generated wailsjs/go/models.ts:
// Wails generates that file at build time only, and it types a json.RawMessage as number[] and
// a time.Time as any. `npm run check:contract` (scripts/check-contract.mjs) reads the generated
// file when it exists and fails when a field of a Go type is missing here, so the two cannot
// drift apart unnoticed. What arrives is never trusted either: state/records.ts turns every
// record into a complete value before the window uses it.

export type Phase = 'idle' | 'submitted' | 'streaming' | 'tools' | 'continuing' | 'awaiting_approval'
export type ThinkLevel = 'off' | 'on' | 'low' | 'medium' | 'high'
export type ApprovalPolicy = 'auto' | 'ask' | 'deny'
export type Decision = 'allow' | 'deny'

export interface Config {
  workspace: string
  model: string
  ollamaUrl: string
  think: ThinkLevel
  contextCap: number
  toolApproval: Record<string, ApprovalPolicy>
  /** How long to wait for a model to start answering, in seconds (0: the default). */
  firstByteTimeoutSec: number
  /** How long a model stays loaded after a request, in minutes (0: 30 minutes; -1: as long as Ollama runs). */
  keepAliveMin?: number
  /** How many times the same tool call may come in a row before the run stops as a loop. */
  loopRepeats?: number
  /** Tool calls a model writes as text stay text (by default they are run, marked). */
  ignoreTextToolCalls?: boolean
  /** The user's instructions for the model in the current workspace (with its AGENTS.md). */
  instructions?: string
  tools: string[]
  dbPath: string
}

/** What SaveSettings accepts: the Config without the read-only fields. */
export type Settings = Omit<Config, 'dbPath' | 'tools'>

export interface ChatSummary {
  id: string
  title: string
  model?: string
  workspace?: string
  createdAt: string
  updatedAt: string
  messageCount: number
  phase: Phase
}

export interface Usage {
  promptTokens?: number
  evalTokens?: number
  evalMs?: number
  tokensPerSec?: number
  /** The context window the request asked for (tokens). */
  numCtx?: number
  /** How much of numCtx the message took: its prompt and its answer. */
  contextTokens?: number
}

export interface StoredToolCall {
  id: string
  name: string
  args?: unknown
  /** The model wrote the call as text; it was executed as a call. */
  recovered?: boolean
}

export type Role = 'system' | 'user' | 'assistant' | 'tool'

export interface StoredMessage {
  id: string
  chatId: string
  runId?: string
  role: Role
  content: string
  thinking?: string
  thinkingMs?: number
  toolCalls?: StoredToolCall[] | null
  toolName?: string
  toolCallId?: string
  /** Base64 of each image sent with the message. */
  images?: string[] | null
  createdAt: string
  updatedAt: string
  complete: boolean
  doneReason?: string
  usage?: Usage | null
  /** On a system message: where the project instructions it shows came from ("AGENTS.md, settings"). */
  instructions?: string
  /** On a system message: the id of the last message the model's summary stands for. */
  summaryOf?: string
  /** Files the message named with @path, as they were sent. */
  files?: FileAttachment[] | null
}

/** A file a message named with @path, and its content as sent. */
export interface FileAttachment {
  path: string
  content: string
}

/** What a tool reports for the window (never sent to the model). */
export interface ToolDetails {
  path?: string
  bytes?: number
  created?: boolean
  changed?: boolean
  diff?: string
}

export interface ApprovalRecord {
  decision: Decision | ''
  by: string
  reason?: string
  decidedAt?: string
}

/**
 * The persisted truth about one tool call (store.ToolCallRecord). A call rejected before it ran
 * (invalid arguments, a stand-in result) has no startedAt; one not finished has no finishedAt.
 */
export interface ToolCallRecord {
  id: string
  chatId: string
  runId?: string
  messageId?: string
  name: string
  args?: unknown
  /** True while the call waits for the user's decision (it has not run). */
  awaitingApproval?: boolean
  /** True from just before the call runs until its result is stored. */
  pending: boolean
  ok: boolean
  output?: string
  details?: ToolDetails | null
  startedAt?: string
  finishedAt?: string
  durationMs?: number
  approval?: ApprovalRecord | null
  /** True for a call the model wrote as text, executed as a call. */
  recovered?: boolean
}

export interface OpenedChat {
  chat: ChatSummary
  messages: StoredMessage[] | null
  toolCalls: ToolCallRecord[] | null
  phase: Phase
  liveRunId: string
}

/**
 * How long one message to a chat may be (agentloop.Budget): the composer compares its estimate
 * of the draft's tokens with maxTokens while the user types or pastes.
 */
export interface PromptBudget {
  model: string
  /** The context the model is given. */
  numCtx: number
  /** What one message may take of it. */
  maxTokens: number
  /** tokens ≈ UTF-8 bytes / charsPerToken (the estimate the Go side applies). */
  charsPerToken: number
}

/** The chat a message went to (a new one when the window sent none). */
export interface SendResult {
  chatId: string
}

export interface OllamaStatus {
  running: boolean
  url: string
  version: string
  error: string
}

export interface ModelInfo {
  name: string
  size: number
  parameterSize: string
  family: string
  tools: boolean
  thinking: boolean
  contextLength: number
  /** The model reads images sent with a message. */
  vision?: boolean
}

/** One step of a model's download, read from a "pull.progress" event of the batch stream. */
export interface PullProgress {
  name: string
  status: string
  digest?: string
  total?: number
  completed?: number
}

export type EventType =
  | 'run.started'
  | 'phase'
  | 'message.started'
  | 'thinking.delta'
  | 'text.delta'
  | 'tool.call'
  | 'tool.approval_requested'
  | 'tool.approval_resolved'
  | 'tool.progress'
  | 'tool.result'
  | 'message.completed'
  | 'context.truncated'
  | 'context.cut'
  | 'retry'
  | 'error'
  | 'run.finished'
  | 'model.loading'
  | 'model.loaded'
  | 'pull.progress'

/**
 * One event of "agent:batch". The payload's fields sit beside the envelope's; which of them are
 * set depends on `type` (see docs/ARCHITECTURE.md, "Event envelope"). Go omits empty fields.
 */
export interface AgentEvent {
  v: number
  seq: number
  chatId: string
  runId?: string
  messageId?: string
  type: EventType
  at: string
  model?: string
  think?: string
  trigger?: string
  phase?: Phase
  role?: string
  text?: string
  toolCallId?: string
  name?: string
  args?: unknown
  state?: 'pending' | 'running' | 'awaiting_approval'
  decision?: Decision
  by?: string
  reason?: string
  update?: unknown
  ok?: boolean
  output?: string
  details?: ToolDetails | null
  durationMs?: number
  doneReason?: string
  usage?: Usage | null
  stopReason?: string
  /** message.started of a system message: 'instructions' or 'summary'. */
  kind?: string
  /** tool.call, tool.result: the model wrote the call as text; it was executed as a call. */
  recovered?: boolean
  /** model.loaded: how long the model took to load. */
  loadMs?: number
  /** pull.progress: the step of a model's download (model names the model). */
  status?: string
  digest?: string
  total?: number
  completed?: number
  droppedMessages?: number
  estimatedTokens?: number
  numCtx?: number
  attempt?: number
  delayMs?: number
  code?: string
  message?: string
  retryable?: boolean
}

/** Everything the window asks of the Go side. Each method mirrors one bound App method. */
export interface Backend {
  config(): Promise<Config>
  saveSettings(settings: Settings): Promise<void>
  setModel(name: string): Promise<void>
  pickWorkspace(): Promise<string>
  listChats(): Promise<ChatSummary[]>
  newChat(): Promise<ChatSummary>
  renameChat(id: string, title: string): Promise<void>
  deleteChat(id: string): Promise<void>
  openChat(id: string): Promise<OpenedChat>
  send(chatId: string, prompt: string): Promise<SendResult>
  /** Image files the user picks in a dialog, base64 (none when cancelled). */
  pickImages(): Promise<string[]>
  /** Files of the workspace whose path contains query, for the composer's @ completion. */
  workspaceFiles(query: string): Promise<string[]>
  /** A message with images (base64 of each file). */
  sendImages(chatId: string, prompt: string, images: string[]): Promise<SendResult>
  /** The budget of one message to the chat ('' for a new one) with the model. */
  promptBudget(chatId: string, model: string): Promise<PromptBudget>
  stop(chatId: string): Promise<void>
  decide(toolCallId: string, decision: Decision, reason: string): Promise<void>
  ollamaStatus(): Promise<OllamaStatus>
  models(): Promise<ModelInfo[]>
  pullModel(name: string): Promise<void>
  painted(seq: number, runningToolCallIds: string[]): Promise<void>
  setVisible(visible: boolean): Promise<void>
  /** Subscribes to "agent:batch"; returns the unsubscribe function. */
  onBatch(handler: (events: AgentEvent[]) => void): () => void
}

// The globals Wails injects into the page.
interface WailsApp {
  Config(): Promise<Config>
  SaveSettings(settings: Settings): Promise<void>
  SetModel(name: string): Promise<void>
  PickWorkspace(): Promise<string>
  ListChats(): Promise<ChatSummary[] | null>
  NewChat(): Promise<ChatSummary>
  RenameChat(id: string, title: string): Promise<void>
  DeleteChat(id: string): Promise<void>
  OpenChat(id: string): Promise<OpenedChat>
  Send(chatId: string, prompt: string): Promise<SendResult>
  SendImages(chatId: string, prompt: string, images: string[]): Promise<SendResult>
  WorkspaceFiles(query: string): Promise<string[] | null>
  PickImages(): Promise<string[] | null>
  PromptBudget(chatId: string, model: string): Promise<PromptBudget>
  Stop(chatId: string): Promise<void>
  Decide(toolCallId: string, decision: Decision, reason: string): Promise<void>
  OllamaStatus(): Promise<OllamaStatus>
  Models(): Promise<ModelInfo[] | null>
  PullModel(name: string): Promise<void>
  Painted(seq: number, runningToolCallIds: string[]): Promise<void>
  SetVisible(visible: boolean): Promise<void>
}

interface WailsRuntime {
  EventsOn(name: string, cb: (...data: any[]) => void): () => void
  EventsOff(name: string, ...more: string[]): void
  ClipboardSetText?(text: string): Promise<boolean>
  BrowserOpenURL?(url: string): void
}

declare global {
  interface Window {
    go?: { main?: { App?: WailsApp } }
    runtime?: WailsRuntime
  }
}

/** True when the page runs inside the Wails window (the bound methods exist). */
export function hasWailsBackend(): boolean {
  return typeof window !== 'undefined' && !!window.go?.main?.App && !!window.runtime
}

/** The backend over the Wails bindings: window.go.main.App and window.runtime. */
export function wailsBackend(): Backend {
  const app = (): WailsApp => {
    const a = window.go?.main?.App
    if (!a) throw new Error('The Go side is not available: run the app with `make run`.')
    return a
  }
  const rt = (): WailsRuntime => {
    if (!window.runtime) throw new Error('The Wails runtime is not available.')
    return window.runtime
  }
  return {
    config: () => app().Config(),
    saveSettings: (s) => app().SaveSettings(s),
    setModel: (n) => app().SetModel(n),
    pickWorkspace: () => app().PickWorkspace(),
    listChats: async () => (await app().ListChats()) ?? [],
    newChat: () => app().NewChat(),
    renameChat: (id, t) => app().RenameChat(id, t),
    deleteChat: (id) => app().DeleteChat(id),
    openChat: (id) => app().OpenChat(id),
    send: (id, p) => app().Send(id, p),
    sendImages: (id, p, images) => app().SendImages(id, p, images),
    workspaceFiles: async (q) => (await app().WorkspaceFiles(q)) ?? [],
    pickImages: async () => (await app().PickImages()) ?? [],
    promptBudget: (id, m) => app().PromptBudget(id, m),
    stop: (id) => app().Stop(id),
    decide: (id, d, r) => app().Decide(id, d, r),
    ollamaStatus: () => app().OllamaStatus(),
    models: async () => (await app().Models()) ?? [],
    pullModel: (n) => app().PullModel(n),
    painted: (seq, ids) => app().Painted(seq, ids),
    setVisible: (v) => app().SetVisible(v),
    onBatch: (handler) =>
      rt().EventsOn('agent:batch', (events: AgentEvent[] | AgentEvent) => {
        handler(Array.isArray(events) ? events : [events])
      }),
  }
}

/** A Go error arrives as a plain string; anything else is turned into one sentence. */
export function errorText(err: unknown): string {
  if (typeof err === 'string') return err
  if (err instanceof Error) return err.message
  return String(err)
}

/** Copies text with the Wails clipboard when present, else the browser's. */
export async function copyText(text: string): Promise<void> {
  if (window.runtime?.ClipboardSetText) {
    await window.runtime.ClipboardSetText(text)
    return
  }
  await navigator.clipboard?.writeText(text)
}
