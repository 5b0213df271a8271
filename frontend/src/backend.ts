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

import type * as generated from './generated/settings'
import { asSentence } from './state/sentence'

// The settings have one type from the store to the panel: generated/settings.ts, written from
// store.Settings by `go generate ./internal/desktop/` (a Go test fails when it is stale).
/** The settings as saved: what Config carries (saved) and SaveSettings accepts back (store.Settings). */
export type Settings = generated.Settings
export type InEffect = generated.InEffect
export type SettingDefaults = generated.SettingDefaults
export type ThinkLevel = generated.ThinkLevel
export type ApprovalPolicy = generated.ApprovalPolicy
export type OlderTurnsPolicy = generated.OlderTurnsPolicy
export type Provider = generated.Provider
export type Theme = generated.Theme
export type SidebarChoice = generated.SidebarChoice
export type CommandRule = generated.CommandRule

export type Phase = 'idle' | 'submitted' | 'streaming' | 'tools' | 'continuing' | 'awaiting_approval' | 'awaiting_summary'
export type Decision = 'allow' | 'deny'
/** Why a run ended: the events.Stop* constants of events/event.go. */
export type StopReason = 'completed' | 'max_steps' | 'aborted' | 'error' | 'awaiting_approval' | 'length' | 'loop' | 'awaiting_summary'
/** The answer to a summary offer (store.SummaryChoice*): 'none' when it was closed unanswered. */
export type SummaryChoice = 'summarize' | 'leave_out' | 'none'
/** Why a call did not run: the events.NotRun* constants of events/event.go (tool.result's and a record's notRun). */
export type NotRunReason = 'replied' | 'stopped' | 'skipped' | 'repeated' | 'loop' | 'copied'
/** Where a call came from: the events.Origin* constants ('text': the model wrote it as text); absent for a native call. */
export type ToolOrigin = 'text'

/** What the window shows in its header and settings (desktop.Config): the session in effect, the settings as saved with their defaults, and the read-only fields. */
export interface Config extends InEffect {
  saved: Settings
  defaults: SettingDefaults
  /** Every tool's approval policy in effect. */
  toolApproval: Record<string, ApprovalPolicy>
  tools: string[]
  /** This machine's name: an address naming it is a local one. */
  hostName?: string
  dbPath: string
  /** The MCP servers of the workspace: their state, their tools, and why one failed. */
  mcpServers?: McpServerStatus[]
  /** Why the folder new chats take cannot be used (gone, or a file), with what to do; none when it can. */
  workspaceProblem?: string
  /** The folders new chats last took, newest first (desktop.RecentFolder). */
  recentFolders?: RecentFolder[] | null
}

/** A folder of the folder menu's recent ones; missing: moved or deleted since. */
export interface RecentFolder {
  path: string
  missing?: boolean
}

/** 'not allowed': a server of the folder's own .prototyper/mcp.json the user has not allowed (it never starts). */
export type McpServerState = 'stopped' | 'running' | 'failed' | 'disabled' | 'not allowed'

/** What one MCP server of a folder's own file runs (mcptools.Launch): a command with its arguments, or a url. */
export interface ServerLaunch {
  name: string
  command?: string
  args: string[] | null
  url?: string
  /** The names of the variables the command is given (their values as written in the file). */
  env: string[] | null
  /** The names of the headers sent to the url. */
  headers: string[] | null
}

/** A folder's own MCP server file, as the user is asked to allow it (mcptools.WorkspaceServers). */
export interface WorkspaceServers {
  workspace: string
  file: string
  /** The hash of the file's bytes: the answer is about exactly these. */
  hash: string
  servers: ServerLaunch[] | null
}

export interface McpServerStatus {
  name: string
  state: McpServerState
  /** The file that configured the server. */
  source: string
  tools: string[]
  /** One sentence when the server failed to start, hung or died. */
  error?: string
}

/** A chat as the store keeps it (store.Chat): its own folder and model among them. */
export interface StoredChat {
  id: string
  title: string
  model?: string
  workspace?: string
  createdAt: string
  updatedAt: string
  messageCount: number
}

/** A chat as the list shows it: the stored chat and its phase. */
export interface ChatSummary extends StoredChat {
  phase: Phase
  /** The phase is a busy one (events.Phase.Busy; absent: not busy): the list's busy dot. */
  busy?: boolean
}

export interface Usage {
  promptTokens?: number
  evalTokens?: number
  evalMs?: number
  tokensPerSec?: number
  /** The server's time evaluating the prompt, and the prompt tokens a second (absent when it does not say). */
  promptMs?: number
  promptTokensPerSec?: number
  /** The wait from the request to the answer's first text or thinking, the model's load left out (ms). */
  firstTokenMs?: number
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
  /** run_command: how the command ended and what it changed. */
  command?: CommandDetails | null
}

/** One path a command changed in the workspace. */
export interface CommandChange {
  path: string
  kind: 'created' | 'modified' | 'deleted' | 'mode' | string
  bytes?: number
  /** A unified diff, capped. */
  diff?: string
}

/** How a run_command call ended (tool.result's details.command). */
export interface CommandDetails {
  exitCode: number
  durationMs: number
  timedOut?: boolean
  /** It ran with the host's network. */
  network?: boolean
  outputBytes?: number
  /** Output bytes cut between the head and the tail the model was given. */
  cutBytes?: number
  /** It ran without the sandbox (the user's setting, where the sandbox cannot start). */
  unconfined?: boolean
  changes?: CommandChange[] | null
  /** Changed files too large to keep: their change cannot be undone. */
  notUndoable?: string[] | null
  /** Changes applied but not listed (past the first few hundred). */
  moreChanges?: number
  /** Paths the command changed that no tool may change (.git, the app's files): left out. */
  refused?: string[] | null
}

/** The command a waiting run_command call would run (preview.command). */
export interface CommandPreview {
  command: string
  /** The folder inside the workspace; '' or absent: its root. */
  cwd?: string
  /** The prefix suggested to always allow, e.g. "npm test". */
  pattern?: string
  /** start_server: the command is a server that keeps running after the call. */
  keepsRunning?: boolean
}

/** The stream a command's output came from (tool.output). */
export type OutputStream = 'stdout' | 'stderr'

/** One path a delete would remove (tools.Removal). */
export interface Removal {
  path: string
  kind: string
  bytes?: number
}

/** The change a call would make, shown while it waits for approval (tools.Preview). */
export interface Preview {
  path: string
  diff?: string
  bytes: number
  created?: boolean
  /** A write or an edit whose content is the file's: nothing changes. */
  unchanged?: boolean
  removes?: Removal[] | null
  /** Files too large to keep: this change cannot be undone. */
  notUndoable?: string[] | null
  /** Why the call cannot succeed as it is (known before it runs); nothing else is set then. */
  fails?: string
  /** run_command: the command line, its folder, the prefix suggested to always allow. */
  command?: CommandPreview | null
}

/** One checkpoint of a chat (agentloop.ChangeSummary): a run that changed files, an undo, a redo. */
export interface ChangeSummary {
  id: string
  kind: 'run' | 'undo' | 'redo' | string
  paths: string[] | null
  /** Of a run's paths, those it created and those it deleted; the others it edited. */
  created?: string[] | null
  deleted?: string[] | null
  reverts?: string[] | null
  revertedBy?: string
  /** A run of a version of the chat not shown, or an undo of one: neither Undo nor Redo acts on it. */
  otherVersion?: boolean
}

/** What an undo takes back (agentloop.UndoOptions); none set: the newest run. */
export interface UndoOptions {
  runId?: string
  fromMessage?: string
  fromRun?: string
  path?: string
  /** With path: the folder it is in (FileChange.workspace); none: where the chat last changed it. */
  workspace?: string
  /** Every path the chat changed, back to before the chat (the review's Revert all). */
  all?: boolean
  force?: boolean
  keep?: boolean
}

/** What an undo or a redo did (agentloop.UndoResult). */
export interface UndoResult {
  changeId: string
  reverts: string[] | null
  paths: string[] | null
  kept?: string[] | null
  /** The paths of paths that were not there before: taking back their creation removed them. */
  removed?: string[] | null
  /** Folders other than the chat's folder now that paths were put back in. */
  elsewhere?: string[] | null
  /** Some of paths were put back in the chat's folder now. */
  inChatFolder?: boolean
  /** Paths an undo forced (or keeping) could not put back: too large to keep; sentence says what became of each. */
  notPutBack?: NotPutBack[] | null
}

/** A path an undo could not put back (agentloop.NotPutBack), and what became of it. */
export interface NotPutBack {
  path: string
  bytes: number
  gone?: boolean
  sentence: string
}

/** One file of a chat's review (agentloop.FileChange). */
export interface FileChange {
  path: string
  /** The folder the chat's runs wrote it in, which may no longer be the chat's. */
  workspace: string
  status: 'created' | 'changed' | 'deleted' | string
  diff?: string
  bytes: number
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
  /** The folder the call ran in: its run's workspace, which may no longer be the chat's. */
  workspace?: string
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
  /** The change the call would make, while it waits for approval. */
  preview?: Preview | null
  /** True for a call the model wrote as text, executed as a call. */
  recovered?: boolean
  /** Where the call came from ('text' also for a record stored with only recovered). */
  origin?: ToolOrigin
  /** Why the call did not run, for a call that neither ran nor was denied. */
  notRun?: NotRunReason
  /** True for a call that was running when the user stopped its run (neither completed nor failed). */
  stopped?: boolean
}

/**
 * A sentence a run said in its chat besides its messages (agentloop.ChatNote): the one that
 * ended it (stopReason set: a loop, an empty answer) or a notice during it (code set: tools
 * that could not be offered).
 */
export interface ChatNote {
  runId: string
  stopReason?: StopReason
  code?: string
  message: string
  /** A summary offer the run made (message is its sentence), with the user's answer. */
  offer?: SummaryOffer | null
}

/** A run's offer to summarize the older messages that no longer fit (store.SummaryOffer). */
export interface SummaryOffer {
  id: string
  messages: number
  tokens: number
  numCtx: number
  model: string
  /** '' (absent) while it waits. */
  choice?: SummaryChoice
}

export interface OpenedChat {
  chat: ChatSummary
  messages: StoredMessage[] | null
  toolCalls: ToolCallRecord[] | null
  phase: Phase
  /** The phase is a busy one (events.Phase.Busy; absent: not busy). */
  busy?: boolean
  liveRunId: string
  /** The state each tool call's card is drawn in, by call id (agentloop.RecordState): drawn as given. */
  toolStates?: Record<string, string> | null
  /** The ids of the answers that are empty answers (agentloop.IsEmptyAnswer). */
  emptyAnswers?: string[] | null
  /** The chat's checkpoints: which runs changed files, and the undos and redos since. */
  changes?: ChangeSummary[] | null
  /** The messages that start one of several versions of the history (edit and resend). */
  versions?: Version[] | null
  /** What the chat's runs said besides their messages, oldest run first. */
  notes?: ChatNote[] | null
  /** For each run whose changes an undo took back (agentloop.UndoneOf), the line its answer carries. */
  undoneRuns?: Record<string, string> | null
  /** The chat's last run when it was cut short (stopped, or the app quit or killed) and nothing runs. */
  stopped?: StoppedRun | null
  /** The runs shown that ended before their end, oldest first: who stopped each answer. */
  stoppedRuns?: StoppedRun[] | null
}

/** A run that ended before its end (agentloop.StoppedRun): Continue goes on from the chat's last. */
export interface StoppedRun {
  runId: string
  /** Cut short: the app quit or the process died while it ran; else the user stopped it. */
  interrupted?: boolean
}

/** Of a message that starts one version of the history after its predecessor: "< 2/3 >". */
export interface Version {
  messageId: string
  /** 1-based, oldest version first. */
  index: number
  count: number
}

/** A chat a search found; messageId and snippet say where, when not in the title. */
export interface ChatHit {
  chat: StoredChat
  messageId?: string
  snippet?: string
}

/**
 * How long one message to a chat may be (agentloop.Budget): the composer compares its estimate
 * of the draft's tokens with maxTokens while the user types or pastes.
 */
export interface PromptBudget {
  model: string
  /** The context the model is given. */
  numCtx: number
  /** Why numCtx is less than asked, when this machine's free memory chose it. */
  numCtxWhy?: string
  /** What one message may take of it. */
  maxTokens: number
  /** Go's estimate of a text: floor(UTF-8 bytes / charsPerToken) + perMessageTokens. */
  charsPerToken: number
  perMessageTokens: number
}

/** The chat a message went to (a new one when the window sent none). */
export interface SendResult {
  chatId: string
}

/** What the folder picker knows of a typed path (cli.FolderCheck). */
export interface FolderCheck {
  /** The path made absolute (~/ is the home folder). */
  path: string
  exists: boolean
  /** It does not exist and its parent is a folder that exists. */
  canCreate: boolean
}

export interface OllamaStatus {
  running: boolean
  url: string
  version: string
  error: string
  /** The server answering is the one Prototyper started (and stops when it quits). */
  startedByApp?: boolean
  /** Why Prototyper could not start a server: one sentence ending with its log's last line. */
  startError?: string
  /** The log of the server Prototyper started, or tried to. */
  logPath?: string
}

/** A small model that calls tools, offered when the server has no model (ollama.StarterModel). */
export interface StarterModel {
  name: string
  /** About how much it downloads, in bytes. */
  size: number
  parameterSize: string
  /** What it is good at, and what it needs. */
  goodAt: string
  recommended?: boolean
  /** The memory a machine should have for it, in bytes. */
  minMemory: number
  /** Why it is recommended on this machine (by the model check, else by its memory). */
  why?: string
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

/**
 * How a model did on this machine's model check (store.ModelCheck): the latest per model, its
 * quantization and context size.
 */
export interface ModelCheck {
  model: string
  quantization?: string
  numCtx: number
  passed: number
  total: number
  calls: number
  wellFormed: number
  textCalls: number
  firstTokenMs: number
  promptTokensPerSec: number
  answerTokensPerSec: number
  memoryBytes?: number
  durationMs: number
  at: string
  /** Every case's result, as the check wrote it. */
  cases?: unknown
  /** The model's calls work written as text and not through the server's API: its chats ask for that form. */
  writtenCalls?: boolean
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
  | 'tool.output'
  | 'tool.result'
  | 'message.completed'
  | 'context.truncated'
  | 'context.cut'
  | 'context.summary_offered'
  | 'context.summary_answered'
  | 'retry'
  | 'error'
  | 'run.finished'
  | 'model.loading'
  | 'model.loaded'
  | 'pull.progress'
  | 'check.progress'
  | 'checkpoint'
  | 'undo'
  | 'redo'
  | 'preview.report'
  | 'server.started'
  | 'server.output'
  | 'server.ended'

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
  /** On a phase event: the phase is a busy one (events.Phase.Busy; absent: not busy). */
  busy?: boolean
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
  /** tool.output: which stream text came from. */
  stream?: OutputStream
  /** tool.output: bytes left out of text (a marker line in text says where). */
  dropped?: number
  ok?: boolean
  output?: string
  details?: ToolDetails | null
  durationMs?: number
  doneReason?: string
  usage?: Usage | null
  /** message.completed of an empty answer (agentloop.IsEmptyAnswer decides it). */
  empty?: boolean
  stopReason?: StopReason
  /** message.started of a system message: 'instructions' or 'summary'. */
  kind?: string
  /** tool.call, tool.result: the model wrote the call as text; it was executed as a call. */
  recovered?: boolean
  /** tool.call, tool.approval_requested: where the call came from. */
  origin?: ToolOrigin
  /** tool.result: why the call did not run (it neither failed nor was denied). */
  notRun?: NotRunReason
  /** tool.result: the call was running when the user stopped its run (it did not fail). */
  stopped?: boolean
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
  /** tool.approval_requested: the change the call would make. */
  preview?: Preview | null
  /** checkpoint: the paths whose prior state was kept; undo, redo: the paths put back; tool.result: the call's paths its run changed. */
  paths?: string[] | null
  /** checkpoint, tool.result: those of paths the run created, deleted (the others it edited); a checkpoint names only creations. */
  created?: string[] | null
  deleted?: string[] | null
  /** checkpoint: files too large to keep, whose change cannot be undone. */
  notUndoable?: string[] | null
  /** tool.result: paths of the call's checkpoint that its run left as they were (it changed nothing there). */
  unchanged?: string[] | null
  /** undo, redo: the change made, and the changes it took back. */
  changeId?: string
  reverts?: string[] | null
  /** undo, redo: the state of every card of a call that changed files, and the lines of the runs whose changes stand undone. */
  toolStates?: Record<string, string> | null
  undoneRuns?: Record<string, string> | null
  /** context.summary_offered, context.summary_answered: the offer, and the answer. */
  offerId?: string
  choice?: SummaryChoice
  /** preview.report (of no chat): what the page in the Preview pane reported since it loaded. */
  report?: PreviewReport
}

/** One thing a previewed page reported (preview.Entry). */
export interface PreviewEntry {
  kind: 'error' | 'rejection' | 'load' | 'console'
  level?: string
  message: string
  source?: string
  line?: number
  column?: number
}

/** What the page of a folder reported since it was last loaded (preview.Report). */
export interface PreviewReport {
  workspace: string
  url: string
  page: string
  load: number
  painted: boolean
  errors: PreviewEntry[] | null
  console: PreviewEntry[] | null
  dropped?: number
  /** The report as the model reads it (preview.Report.Describe). */
  text: string
}

/** A development server start_server started (tools.ServerInfo); server.started carries it as `update`. */
export interface DevServer {
  /** The start_server call's id. */
  id: string
  workspace: string
  command: string
  cwd: string
  /** The port it listens on in its sandbox. */
  port: number
}

/** The page the Preview pane shows for a chat (cli.PreviewPage). */
export interface PreviewPage {
  /** The folder's site, ending in "/": the frame shows url + page. */
  url: string
  origin: string
  workspace: string
  page: string
  pages: string[] | null
  report: PreviewReport
}

/**
 * Everything the window asks of the Go side. Each method but setTitle and onBatch (the Wails
 * runtime's) mirrors one bound App method: WailsApp below is derived from it, and
 * `npm run check:contract` compares that with the methods Go binds.
 */
export interface Backend {
  config(): Promise<Config>
  saveSettings(settings: Settings): Promise<void>
  setModel(name: string): Promise<void>
  /** Saves whether the list of chats is shown, for this start and the next. */
  setSidebar(choice: SidebarChoice): Promise<void>
  pickWorkspace(): Promise<string>
  listChats(): Promise<ChatSummary[]>
  newChat(): Promise<ChatSummary>
  renameChat(id: string, title: string): Promise<void>
  /** Keeps the text typed in a chat's box and not sent ('' for a chat not started yet). */
  saveDraft(chatId: string, text: string): Promise<void>
  /** The unsent text of each chat, by chat id. */
  drafts(): Promise<Record<string, string>>
  /** Keeps the images (base64) of a chat's box not sent, beside its text; none forgets them. */
  saveDraftImages(chatId: string, images: string[]): Promise<void>
  /** The images of each chat's unsent text, by chat id (a queued message's a run never took too). */
  draftImages(): Promise<Record<string, string[]>>
  /** Remembers the chat the window shows ('' for a chat not started), for the next start. */
  setOpenChat(chatId: string): Promise<void>
  /** The chat the window showed last ('' when none, or when it is gone). */
  lastOpenChat(): Promise<string>
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
  /** Allows the call and every later call of its tool in the chat's workspace. */
  allowAlways(toolCallId: string): Promise<void>
  /**
   * Allows a waiting run_command call, with the host's network when network; a pattern not
   * empty also allows for good the commands starting with it in the chat's workspace.
   */
  allowCommand(toolCallId: string, network: boolean, pattern: string): Promise<void>
  /** Answers the chat's offer to summarize older messages; the chat then goes on. */
  answerSummaryOffer(chatId: string, choice: Exclude<SummaryChoice, 'none'>): Promise<void>
  undo(chatId: string, opts: UndoOptions): Promise<UndoResult>
  redo(chatId: string, opts: UndoOptions): Promise<UndoResult>
  chatChanges(chatId: string): Promise<FileChange[]>
  /** Opens a path of the chat's workspace with the system's app, or the folder holding it. */
  openPath(chatId: string, path: string, inFolder: boolean): Promise<void>
  /** openPath for a tool call's card: the path in the folder that call wrote it in. */
  openCallPath(chatId: string, toolCallId: string, path: string, inFolder: boolean): Promise<void>
  /** openPath for a file of the chat's review: the path in the folder the review names for it. */
  openChangedPath(chatId: string, workspace: string, path: string, inFolder: boolean): Promise<void>
  ollamaStatus(): Promise<OllamaStatus>
  models(): Promise<ModelInfo[]>
  /** The models offered to pull when the server has none, the recommended one first. */
  starterModels(): Promise<StarterModel[]>
  pullModel(name: string): Promise<void>
  /** Runs the model check on a model and keeps its result; progress comes as "check.progress" events. */
  checkModel(name: string): Promise<ModelCheck>
  /** Stops the model check of a model (its checkModel call then fails). */
  stopModelCheck(name: string): Promise<void>
  /** The latest check of every model checked on this machine. */
  modelChecks(): Promise<ModelCheck[]>
  /**
   * Acknowledges the batch ending at seq, painted with the tool cards of runningToolCallIds in
   * the DOM as running. The bridge log notes the page's times of the batch beside it (in
   * milliseconds since the Unix epoch, 0 for none): when the page received it, and when it
   * knew the frame showing it painted.
   */
  painted(seq: number, runningToolCallIds: string[], receivedAtUnixMs: number, paintedAtUnixMs: number): Promise<void>
  /** Notes on the bridge log that the window received a key at atUnixMs (the key event's time). */
  keyReceived(key: string, atUnixMs: number): Promise<void>
  setVisible(visible: boolean): Promise<void>
  /** Asks for a folder with the native dialog ('' when cancelled); uses it for nothing yet. */
  chooseFolder(from: string): Promise<string>
  /** Makes a folder the one new chats take; returns its absolute path. */
  useFolder(dir: string): Promise<string>
  /** Whether a typed path is a folder, or one that can be created inside a folder that exists. */
  checkFolder(dir: string): Promise<FolderCheck>
  /** Creates a folder inside one that exists; returns its absolute path. */
  createFolder(dir: string): Promise<string>
  /** Moves a chat to a folder from its next message on. */
  setChatWorkspace(chatId: string, dir: string): Promise<ChatSummary>
  /** Makes a model the one of a chat's next messages. */
  setChatModel(chatId: string, name: string): Promise<ChatSummary>
  /** Replaces a user message and sends it; what followed stays as an earlier version. */
  editAndResend(chatId: string, messageId: string, text: string): Promise<SendResult>
  /** Shows version `index` (1-based) of the history at the message starting the one shown. */
  showVersion(chatId: string, shownId: string, index: number): Promise<OpenedChat>
  /** Chats whose title or messages hold the query, newest first. */
  searchChats(query: string): Promise<ChatHit[]>
  /** The MCP servers of a folder's own file ('' for the folder of new chats) the user has not answered about (again: or refused); null when none. */
  workspaceServersToAsk(dir: string, again: boolean): Promise<WorkspaceServers | null>
  /** Allows the folder's own MCP server file as shown (its hash); its servers start. */
  allowWorkspaceServers(dir: string, hash: string): Promise<void>
  /** Does not allow the folder's own MCP server file as shown: not asked again until it changes. */
  refuseWorkspaceServers(dir: string, hash: string): Promise<void>
  /** Replaces a message waiting for the chat's run (index 0 the oldest); '' takes it back. */
  editQueued(chatId: string, index: number, text: string): Promise<void>
  /** Starts the preview if needed; the page to show for the chat ('' for the folder of new chats), page if it has it. */
  previewOpen(chatId: string, page: string): Promise<PreviewPage>
  devServers(): Promise<DevServer[]>
  devServerURL(id: string): Promise<string>
  stopDevServer(id: string): Promise<void>
  /** A PNG (base64) of what the web view shows in a rectangle of CSS pixels (the viewport viewWidth wide). */
  previewScreenshot(x: number, y: number, width: number, height: number, viewWidth: number): Promise<string>
  /** Sets the window's title (the desktop's task bar shows it). */
  setTitle(title: string): void
  /** Quits the app, as closing its window does. */
  quit(): void
  /** Subscribes to "agent:batch"; returns the unsubscribe function. */
  onBatch(handler: (events: AgentEvent[]) => void): () => void
}

/** The methods of Backend that the Wails runtime serves, not a bound App method. */
type RuntimeMethods = 'setTitle' | 'quit' | 'onBatch'

/** A Go slice may be nil: it arrives as null. */
type Nilable<T> = T extends unknown[] ? T | null : T

/**
 * The globals Wails injects into the page: window.go.main.App has every method of Backend but
 * the runtime's, under its Go name, and a slice it returns may be null.
 */
type WailsApp = {
  [K in Exclude<keyof Backend, RuntimeMethods> as Capitalize<K>]: Backend[K] extends (
    ...args: infer A
  ) => Promise<infer R>
    ? (...args: A) => Promise<Nilable<R>>
    : never
}

interface WailsRuntime {
  EventsOn(name: string, cb: (...data: any[]) => void): () => void
  EventsOff(name: string, ...more: string[]): void
  ClipboardSetText?(text: string): Promise<boolean>
  WindowSetTitle?(title: string): void
  Quit?(): void
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
    if (!a) throw new Error('The app’s Go side is not available: open Prototyper with “make run”.')
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
    setSidebar: (c) => app().SetSidebar(c),
    pickWorkspace: () => app().PickWorkspace(),
    listChats: async () => (await app().ListChats()) ?? [],
    newChat: () => app().NewChat(),
    renameChat: (id, t) => app().RenameChat(id, t),
    saveDraft: (id, text) => app().SaveDraft(id, text),
    drafts: async () => (await app().Drafts()) ?? {},
    saveDraftImages: (id, images) => app().SaveDraftImages(id, images),
    draftImages: async () => (await app().DraftImages()) ?? {},
    setOpenChat: (id) => app().SetOpenChat(id),
    lastOpenChat: () => app().LastOpenChat(),
    deleteChat: (id) => app().DeleteChat(id),
    openChat: (id) => app().OpenChat(id),
    send: (id, p) => app().Send(id, p),
    sendImages: (id, p, images) => app().SendImages(id, p, images),
    workspaceFiles: async (q) => (await app().WorkspaceFiles(q)) ?? [],
    pickImages: async () => (await app().PickImages()) ?? [],
    promptBudget: (id, m) => app().PromptBudget(id, m),
    stop: (id) => app().Stop(id),
    decide: (id, d, r) => app().Decide(id, d, r),
    allowAlways: (id) => app().AllowAlways(id),
    allowCommand: (id, network, pattern) => app().AllowCommand(id, network, pattern),
    answerSummaryOffer: (id, choice) => app().AnswerSummaryOffer(id, choice),
    undo: (id, o) => app().Undo(id, o),
    redo: (id, o) => app().Redo(id, o),
    chatChanges: async (id) => (await app().ChatChanges(id)) ?? [],
    openPath: (id, p, f) => app().OpenPath(id, p, f),
    openCallPath: (id, call, p, f) => app().OpenCallPath(id, call, p, f),
    openChangedPath: (id, ws, p, f) => app().OpenChangedPath(id, ws, p, f),
    ollamaStatus: () => app().OllamaStatus(),
    models: async () => (await app().Models()) ?? [],
    starterModels: async () => (await app().StarterModels()) ?? [],
    pullModel: (n) => app().PullModel(n),
    checkModel: (n) => app().CheckModel(n),
    stopModelCheck: (n) => app().StopModelCheck(n),
    modelChecks: async () => (await app().ModelChecks()) ?? [],
    painted: (seq, ids, received, painted) => app().Painted(seq, ids, received, painted),
    keyReceived: (key, at) => app().KeyReceived(key, at),
    setVisible: (v) => app().SetVisible(v),
    chooseFolder: (from) => app().ChooseFolder(from),
    useFolder: (dir) => app().UseFolder(dir),
    checkFolder: async (dir) => (await app().CheckFolder(dir)) ?? { path: dir, exists: false, canCreate: false },
    createFolder: (dir) => app().CreateFolder(dir),
    setChatWorkspace: (id, dir) => app().SetChatWorkspace(id, dir),
    setChatModel: (id, name) => app().SetChatModel(id, name),
    editAndResend: (id, mid, text) => app().EditAndResend(id, mid, text),
    showVersion: (id, shown, index) => app().ShowVersion(id, shown, index),
    searchChats: async (q) => (await app().SearchChats(q)) ?? [],
    workspaceServersToAsk: async (dir, again) => (await app().WorkspaceServersToAsk(dir, again)) ?? null,
    allowWorkspaceServers: (dir, hash) => app().AllowWorkspaceServers(dir, hash),
    refuseWorkspaceServers: (dir, hash) => app().RefuseWorkspaceServers(dir, hash),
    editQueued: (id, i, text) => app().EditQueued(id, i, text),
    previewOpen: (id, page) => app().PreviewOpen(id, page),
    devServers: async () => (await app().DevServers()) ?? [],
    devServerURL: (id) => app().DevServerURL(id),
    stopDevServer: (id) => app().StopDevServer(id),
    previewScreenshot: (x, y, w, h, viewWidth) => app().PreviewScreenshot(x, y, w, h, viewWidth),
    setTitle: (title) => {
      window.runtime?.WindowSetTitle?.(title)
      document.title = title
    },
    quit: () => window.runtime?.Quit?.(),
    onBatch: (handler) =>
      rt().EventsOn('agent:batch', (events: AgentEvent[] | AgentEvent) => {
        handler(Array.isArray(events) ? events : [events])
      }),
  }
}

/** A Go error arrives as a plain string, in Go's words; it is shown as a sentence (asSentence). */
export function errorText(err: unknown): string {
  if (typeof err === 'string') return asSentence(err)
  if (err instanceof Error) return asSentence(err.message)
  return asSentence(String(err))
}

/** Copies text with the Wails clipboard when present, else the browser's. */
export async function copyText(text: string): Promise<void> {
  if (window.runtime?.ClipboardSetText) {
    await window.runtime.ClipboardSetText(text)
    return
  }
  await navigator.clipboard?.writeText(text)
}
