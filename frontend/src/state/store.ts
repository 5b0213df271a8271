// The window's one store, outside React (components read it with useSyncExternalStore through
// useAppState). It receives every "agent:batch" for every chat, applies it with reduceChat in
// seq order, and acknowledges each batch once it was painted.
//
// Timing rules:
//   - Lifecycle events (phase, tool.call, tool.result, message.completed, …) apply at once, one
//     notification per batch. Text and thinking deltas are merged and applied once per
//     animation frame; before a lifecycle event of the same chat they are flushed, so the order
//     of the seq stream is kept.
//   - After a batch is applied the store waits two animation frames (the first frame paints it,
//     the second runs after that paint), then calls Painted(highest seq of the batch, ids of the
//     tool cards in the DOM as running).
//   - The bridge owns the paint invariant (docs/ARCHITECTURE.md): it sends a tool's result only
//     after an acknowledgement listed its card running. This store keeps one guard of its own,
//     for the failure the bridge cannot prevent: a window slower than the bridge's ack fallback
//     (a busy page, a loaded machine; a shared 2-core test machine saw 270 ms) gets the result
//     without that acknowledgement, because a hung window must never stall a run. Then a result
//     for a card whose running state was not painted yet first shows the card running, and that
//     chat's events from the result on are held until two frames later.

import type {
  AgentEvent,
  Backend,
  ChatSummary,
  Config,
  Decision,
  FileChange,
  ModelInfo,
  OllamaStatus,
  PromptBudget,
  PullProgress,
  Settings,
  StarterModel,
  UndoOptions,
  UndoResult,
  Version,
  ChatHit,
  WorkspaceServers,
} from '../backend'
import { errorText } from '../backend'
import { serverGoneCodes } from './errorSentences'
import {
  addLocalUserMessage,
  chatFromSnapshot,
  serverBack,
  emptyChat,
  isDuplicate,
  isStoppable,
  markRunning,
  mergeLive,
  reduceChat,
  waitingOffer,
  type ChatState,
  type OfferView,
  type TimelineEntry,
  type ToolCard as ToolCardModel,
} from './chatReducer'

export interface PullState {
  name: string
  status: string
  total: number
  completed: number
  /** Smoothed download speed. */
  bytesPerSec: number
  error: string
  done: boolean
}

export interface AppState {
  config: Config | null
  configError: string
  ollama: OllamaStatus | null
  checkingOllama: boolean
  models: ModelInfo[]
  /** The models offered to pull when the server has none (one list, from the Go side). */
  starters: StarterModel[]
  chatList: ChatSummary[]
  activeChatId: string | null
  chats: Record<string, ChatState>
  pulls: Record<string, PullState>
  /** The last action that failed, in one sentence; shown until dismissed, another chat is opened or a message is sent. */
  error: string
  /**
   * What the failed action was about, when a later success makes its sentence stale: 'folder'
   * (a folder picked that could not be used goes once a folder is picked and used).
   */
  errorAbout: 'folder' | null
  /** True once start() has loaded the settings, the chats and the chat shown at start. */
  ready: boolean
  /** Decisions sent for tool calls and not refused: their buttons are spent. */
  decisions: Record<string, Decision>
  /** How long a message may be, by budgetKey (chat and model). */
  budgets: Record<string, PromptBudget>
  /** The open review of a chat's changed files ("Changes"), or null. */
  review: { chatId: string; files: FileChange[]; loading: boolean } | null
  /** An undo or redo refused because files changed since: what was asked, and why. */
  undoConflict: { chatId: string; redo: boolean; opts: UndoOptions; message: string } | null
  /** What the last undo or redo did, in one sentence, and the chat it was done in (shown there only). */
  undoNote: { chatId: string; text: string } | null
  /** The waiting call whose "Deny and tell the model why" field is open. */
  reasonFor: string | null
  /** What the user chose so far on a waiting command's card (network, the prefix to always allow), by call. */
  commandChoices: Record<string, CommandChoice>
  /** By chat: the messages that start one of several versions of its history. */
  versions: Record<string, Version[]>
  /** A folder or model chosen while a chat is open: the window asks what it is for. */
  pendingChange: PendingChange | null
  /** The user message being edited in the open chat ('' when none). */
  editing: string
  /** By chat: the messages sent while it was busy that its run has not taken yet, oldest first. */
  queued: Record<string, string[]>
  /** Text of queued messages a stopped run never took, given back to the composer ('' none). */
  restoredDraft: string
  /** Images (base64) of those messages, given back with their text. */
  restoredImages: string[]
}

/** A folder or a model the user picked in the header while a chat was open. */
export interface PendingChange {
  kind: 'workspace' | 'model'
  value: string
  chatId: string
}

/** Whether two names are the same model (a name without a tag is the model's ":latest"). */
export function sameModel(a: string, b: string): boolean {
  const full = (n: string) => (n && !n.includes(':') ? `${n}:latest` : n)
  return full(a) === full(b)
}

/**
 * What a run changed as a person counts it: the files, and apart the folders made (or removed)
 * with them. A path of the change that holds another path of it is a folder: a write records
 * the folders it makes, a delete everything it removes.
 */
export function filesAndFolders(paths: string[]): { files: string[]; folders: string[] } {
  const holds = (dir: string) => paths.some((p) => p.startsWith(`${dir}/`))
  return { files: paths.filter((p) => !holds(p)), folders: paths.filter(holds) }
}

/** "This run changed a.txt and b.txt", "…changed site/index.html (and 2 folders)". */
export function runChangeText(paths: string[]): string {
  return `This run changed ${filesThenFolders(paths)}`
}

/** What an undo or a redo put back, files named and the folders that hold them counted apart. */
export function undoneText(redo: boolean, res: Pick<UndoResult, 'paths' | 'removed' | 'elsewhere' | 'inChatFolder'>): string {
  // a name put back in two of the chat's folders is said once; the folders are said after
  const paths = [...new Set(res.paths ?? [])]
  const removed = paths.filter((p) => res.removed?.includes(p))
  const back = paths.filter((p) => !removed.includes(p))
  const said = [
    ...(back.length > 0 || removed.length === 0 ? [`${filesThenFolders(back)} put back`] : []),
    ...(removed.length > 0 ? [`${filesThenFolders(removed)} removed`] : []),
  ]
  const elsewhere = res.elsewhere ?? []
  const earlier = `${pathList(elsewhere)}, its earlier folder${elsewhere.length > 1 ? 's' : ''}`
  const where = elsewhere.length === 0 ? '' : res.inChatFolder ? ` (in the chat’s folder and in ${earlier})` : ` (in ${earlier})`
  return `${redo ? 'Redone' : 'Undone'}: ${said.join('; ')}${where}.`
}

/** The files of paths named, and the folders that hold them counted: "site/index.html (and a folder)". */
function filesThenFolders(paths: string[]): string {
  const { files, folders } = filesAndFolders(paths)
  const also = folders.length === 0 ? '' : folders.length === 1 ? ' (and a folder)' : ` (and ${folders.length} folders)`
  return `${pathList(files)}${also}`
}

/** Paths as a sentence names them (what a run changed, what an undo put back): "a.txt", "a.txt and b.txt", "a, b, c and 4 more". */
export function pathList(paths: string[]): string {
  const shown = paths.length > 4 ? paths.slice(0, 3) : paths
  const rest = paths.length - shown.length
  const names = rest > 0 ? [...shown, `${rest} more`] : shown
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}` : (names[0] ?? 'nothing')
}

/** The open chat's summary, when a chat is open and listed. */
export function activeSummary(s: Pick<AppState, 'activeChatId' | 'chatList'>): ChatSummary | undefined {
  return s.activeChatId ? s.chatList.find((c) => c.id === s.activeChatId) : undefined
}

/** The folder the header shows: the open chat's, else the one a new chat takes. */
export function headerWorkspace(s: Pick<AppState, 'activeChatId' | 'chatList' | 'config'>): string {
  return activeSummary(s)?.workspace || s.config?.workspace || ''
}

/** The model the header shows: the open chat's, else the one a new chat takes. */
export function headerModel(s: Pick<AppState, 'activeChatId' | 'chatList' | 'config'>): string {
  return activeSummary(s)?.model || s.config?.model || ''
}

/** The key of the budget that applies to the composer now: the open chat and the model. */
export function budgetKey(s: Pick<AppState, 'activeChatId' | 'chatList' | 'config'>): string {
  return `${s.activeChatId ?? ''}\n${headerModel(s)}`
}

/** The server's model of that name (a name without a tag is the model's ":latest"). */
export function findModel(models: ModelInfo[], name: string): ModelInfo | undefined {
  return models.find((m) => sameModel(m.name, name))
}

/** True when Ollama answers and has no model yet: the window offers a first one. */
export function needsFirstModel(s: Pick<AppState, 'ollama' | 'models'>): boolean {
  return !!s.ollama?.running && s.models.length === 0
}

/** On a waiting run_command card: whether it may use the network, and the prefix "Always allow" remembers. */
export interface CommandChoice {
  network: boolean
  pattern: string
}

/**
 * The prefix offered to always allow for a command: the one the Go side suggests, which is
 * empty when no prefix covers only what the line runs (a bare shell): then the user writes one.
 */
export function suggestedPattern(card: Pick<ToolCardModel, 'preview'>): string {
  return card.preview?.command?.pattern ?? ''
}

export interface StoreOptions {
  backend: Backend
  /** requestAnimationFrame, injectable so tests drive frames by hand. */
  requestFrame?: (cb: () => void) => void
  /** Ids of the tool cards shown as running in the DOM; read for each paint ack. */
  runningToolIdsInDom?: () => string[]
  now?: () => number
}

// Events merged per animation frame: a model's text and thought, and a command's output.
const deltaTypes = new Set(['thinking.delta', 'text.delta', 'tool.output'])

// The most text one merged tool.output event carries: beyond it the next event starts, so that
// a command printing fast is bounded by the card's head and tail (commandOutput.ts), not joined
// whole first.
const outputMergeChars = 64 * 1024

/** Reads `[data-tool-state="running"]` cards in the document. */
export function runningToolIdsInDocument(): string[] {
  if (typeof document === 'undefined') return []
  return Array.from(document.querySelectorAll<HTMLElement>('[data-tool-state="running"]'))
    .map((el) => el.dataset.toolCallId ?? '')
    .filter(Boolean)
}

// Per chat: deltas waiting for the next frame, and events held behind an unpainted running card.
interface Feed {
  deltas: AgentEvent[]
  held: AgentEvent[]
  heldFor: Set<string>
}

let localIds = 0

/** How long after the last key typed the unsent text of a chat is kept. */
export const draftSaveMs = 300

/** The first wait before asking again whether Ollama answers, and the longest one. */
export const ollamaPollFirstMs = 1000
export const ollamaPollMaxMs = 15000

export class AppStore {
  private state: AppState = {
    config: null,
    configError: '',
    ollama: null,
    checkingOllama: false,
    models: [],
    starters: [],
    chatList: [],
    activeChatId: null,
    chats: {},
    pulls: {},
    error: '',
    errorAbout: null,
    ready: false,
    decisions: {},
    budgets: {},
    review: null,
    undoConflict: null,
    undoNote: null,
    reasonFor: null,
    commandChoices: {},
    versions: {},
    pendingChange: null,
    editing: '',
    queued: {},
    restoredDraft: '',
    restoredImages: [],
  }
  private listeners = new Set<() => void>()
  private feeds = new Map<string, Feed>()
  /** Cards that became running in a commit not yet painted. */
  private unpaintedRunning = new Set<string>()
  private deltaFrameQueued = false
  private unsubscribers: Array<() => void> = []
  private readonly backend: Backend
  private readonly requestFrame: (cb: () => void) => void
  private readonly runningInDom: () => string[]
  private readonly now: () => number
  private pullSamples = new Map<string, { at: number; completed: number }>()

  constructor(opts: StoreOptions) {
    this.backend = opts.backend
    this.requestFrame =
      opts.requestFrame ??
      ((cb) => (typeof requestAnimationFrame === 'function' ? requestAnimationFrame(() => cb()) : setTimeout(cb, 16)))
    this.runningInDom = opts.runningToolIdsInDom ?? runningToolIdsInDocument
    this.now = opts.now ?? (() => Date.now())
  }

  getState = (): AppState => this.state

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  private set(patch: Partial<AppState>): void {
    this.state = { ...this.state, ...patch }
    for (const l of this.listeners) l()
  }

  private setChat(chatId: string, chat: ChatState): void {
    this.set({ chats: { ...this.state.chats, [chatId]: chat } })
  }

  private fail(err: unknown, about: AppState['errorAbout'] = null): void {
    this.set({ error: errorText(err), errorAbout: about })
  }

  dismissError = (): void => this.set({ error: '', errorAbout: null })

  /** A folder was picked and is used: a sentence about a folder that could not be is stale. */
  private folderPicked(): void {
    if (this.state.errorAbout === 'folder') this.dismissError()
  }

  // ---- events --------------------------------------------------------------------------

  /** Applies one "agent:batch" and schedules its paint acknowledgement. */
  ingest(batch: AgentEvent[]): void {
    if (batch.length === 0) return
    const events = [...batch].sort((a, b) => a.seq - b.seq)
    const lastSeq = events[events.length - 1].seq
    // Scheduled before anything this batch schedules, so that in the frame where a held result
    // is released the acknowledgement reads the DOM first (microtasks run between callbacks).
    this.afterPaint(() => {
      void this.backend.painted(lastSeq, this.runningInDom()).catch(() => {})
    })
    const byChat = new Map<string, AgentEvent[]>()
    for (const ev of events) {
      // A model's download is of no chat: it travels in the same stream, and goes to the pulls.
      if (this.takePullEvent(ev)) continue
      if (ev.type === 'preview.report') continue // of no chat: the Preview pane's (state/preview.ts)
      if (ev.type.startsWith('server.')) continue // of no chat: the pane's servers (state/devServers.ts)
      if (ev.type === 'error' && ev.code && serverGoneCodes.has(ev.code)) this.onServerGone(ev)
      const list = byChat.get(ev.chatId)
      if (list) list.push(ev)
      else byChat.set(ev.chatId, [ev])
    }
    const chats = { ...this.state.chats }
    let changed = false
    let needsListRefresh = false
    for (const [chatId, evs] of byChat) {
      const before = chats[chatId] ?? emptyChat(chatId)
      const after = this.takeFromQueue(chatId, evs, this.process(chatId, before, evs))
      if (after !== before) {
        chats[chatId] = after
        changed = true
      }
      if (evs.some((e) => e.type === 'run.finished' || e.type === 'run.started')) needsListRefresh = true
      // The open review follows what a run, an undo or a redo changed.
      if (this.state.review?.chatId === chatId && evs.some((e) => e.type === 'run.finished' || e.type === 'undo' || e.type === 'redo'))
        void this.loadReview(chatId)
    }
    if (changed) this.set({ chats })
    if (needsListRefresh) void this.refreshChats()
  }

  // Applies the events of one chat in order; returns the new state of that chat.
  private process(chatId: string, start: ChatState, events: AgentEvent[]): ChatState {
    const feed = this.feed(chatId)
    let s = start
    const becameRunning: string[] = []
    for (let i = 0; i < events.length; i++) {
      const ev = events[i]
      if (feed.heldFor.size > 0) {
        feed.held.push(...events.slice(i))
        feed.held.sort((a, b) => a.seq - b.seq)
        break
      }
      if (deltaTypes.has(ev.type)) {
        feed.deltas.push(ev)
        continue
      }
      s = this.flushDeltas(s, feed)
      if (ev.type === 'tool.result' && ev.toolCallId && !isDuplicate(s, ev) && this.mustShowRunningFirst(s, ev)) {
        const card = s.tools[ev.toolCallId]
        if (card?.state !== 'running') {
          s = markRunning(s, ev)
          becameRunning.push(ev.toolCallId)
          this.unpaintedRunning.add(ev.toolCallId)
        }
        feed.heldFor.add(ev.toolCallId)
        feed.held.push(...events.slice(i))
        break
      }
      const prev = ev.toolCallId ? s.tools[ev.toolCallId]?.state : undefined
      s = reduceChat(s, ev)
      if (ev.toolCallId && prev !== 'running' && s.tools[ev.toolCallId]?.state === 'running') {
        becameRunning.push(ev.toolCallId)
        this.unpaintedRunning.add(ev.toolCallId)
      }
    }
    if (feed.deltas.length > 0) this.queueDeltaFrame()
    if (becameRunning.length > 0) {
      this.afterPaint(() => {
        for (const id of becameRunning) this.unpaintedRunning.delete(id)
        this.releaseHeld()
      })
    }
    return s
  }

  // A result may be applied only once its card was painted running (a denied card never runs,
  // nor does a call whose result says it did not run).
  private mustShowRunningFirst(s: ChatState, ev: AgentEvent): boolean {
    if (ev.notRun) return false
    const card = s.tools[ev.toolCallId!]
    if (card && (card.state === 'denied' || card.state === 'completed' || card.state === 'failed' || card.state === 'stopped'))
      return false
    if (card?.state === 'running') return this.unpaintedRunning.has(card.id)
    return true
  }

  private releaseHeld(): void {
    const chats = { ...this.state.chats }
    let changed = false
    for (const [chatId, feed] of this.feeds) {
      if (feed.heldFor.size === 0) continue
      for (const id of [...feed.heldFor]) if (!this.unpaintedRunning.has(id)) feed.heldFor.delete(id)
      if (feed.heldFor.size > 0) continue
      const held = feed.held
      feed.held = []
      const before = chats[chatId] ?? emptyChat(chatId)
      const after = this.process(chatId, before, held)
      if (after !== before) {
        chats[chatId] = after
        changed = true
      }
    }
    if (changed) this.set({ chats })
  }

  private feed(chatId: string): Feed {
    let f = this.feeds.get(chatId)
    if (!f) {
      f = { deltas: [], held: [], heldFor: new Set() }
      this.feeds.set(chatId, f)
    }
    return f
  }

  // Consecutive deltas of one message and kind become one event before the reducer sees them.
  private flushDeltas(s: ChatState, feed: Feed): ChatState {
    if (feed.deltas.length === 0) return s
    const merged: AgentEvent[] = []
    const seen = new Set<number>()
    for (const ev of feed.deltas) {
      if (seen.has(ev.seq) || isDuplicate(s, ev)) continue
      seen.add(ev.seq)
      const last = merged[merged.length - 1]
      const sameOutput =
        ev.type !== 'tool.output' ||
        (last?.toolCallId === ev.toolCallId && last?.stream === ev.stream && (last?.text ?? '').length < outputMergeChars)
      if (last && last.type === ev.type && last.messageId === ev.messageId && last.runId === ev.runId && sameOutput) {
        merged[merged.length - 1] = { ...last, seq: ev.seq, text: (last.text ?? '') + (ev.text ?? '') }
      } else {
        merged.push(ev)
      }
    }
    feed.deltas = []
    for (const ev of merged) s = reduceChat(s, ev)
    return s
  }

  private queueDeltaFrame(): void {
    if (this.deltaFrameQueued) return
    this.deltaFrameQueued = true
    this.requestFrame(() => {
      this.deltaFrameQueued = false
      const chats = { ...this.state.chats }
      let changed = false
      for (const [chatId, feed] of this.feeds) {
        if (feed.deltas.length === 0) continue
        const before = chats[chatId] ?? emptyChat(chatId)
        const after = this.flushDeltas(before, feed)
        if (after !== before) {
          chats[chatId] = after
          changed = true
        }
      }
      if (changed) this.set({ chats })
    })
  }

  private afterPaint(cb: () => void): void {
    this.requestFrame(() => this.requestFrame(cb))
  }

  // ---- lifecycle -------------------------------------------------------------------------

  /** Subscribes to the Go side and loads config, Ollama status, models and chats. */
  async start(): Promise<void> {
    this.unsubscribers.push(this.backend.onBatch((events) => this.ingest(events)))
    if (typeof document !== 'undefined') {
      const onVisibility = () => void this.backend.setVisible(!document.hidden).catch(() => {})
      document.addEventListener('visibilitychange', onVisibility)
      this.unsubscribers.push(() => document.removeEventListener('visibilitychange', onVisibility))
      onVisibility()
    }
    try {
      const last = this.backend.lastOpenChat().catch(() => '')
      await Promise.all([this.loadConfig(), this.refreshOllama(), this.refreshChats(), this.loadStarters(), this.loadDrafts()])
      // Coming back to the app shows the chat you were in (else the newest one), unless a chat
      // was already chosen (or started) meanwhile.
      const lastId = await last
      const back = this.state.chatList.find((c) => c.id === lastId) ?? this.state.chatList[0]
      if (back && this.state.activeChatId === null) await this.selectChat(back.id)
      else void this.loadBudget()
      // the box of a chat opened above takes its unsent text as it moves there; a new chat's
      // box, open from the start, is given its own, and told at once when its folder is gone
      if (this.state.activeChatId === null && this.draftOf('')) this.set({ restoredDraft: this.draftOf('') })
      const problem = this.state.config?.workspaceProblem
      if (this.state.activeChatId === null && problem) this.fail(problem, 'folder')
    } finally {
      this.set({ ready: true })
    }
  }

  /**
   * Asks how long a message to the open chat with the current model may be (once per chat and
   * model). Without an answer (no model yet, Ollama away) the composer simply does not warn.
   */
  async loadBudget(): Promise<void> {
    const s = this.state
    const model = headerModel(s)
    const key = budgetKey(s)
    if (!model || s.budgets[key] || (s.ollama && !s.ollama.running)) return
    try {
      const budget = await this.backend.promptBudget(s.activeChatId ?? '', model)
      this.set({ budgets: { ...this.state.budgets, [key]: budget } })
    } catch {
      // The Go side checks again when the message is sent, and says why it cannot be.
    }
  }

  stopListening(): void {
    for (const u of this.unsubscribers.splice(0)) u()
    if (this.ollamaPoll) clearTimeout(this.ollamaPoll)
    this.ollamaPoll = null
  }

  async loadConfig(): Promise<void> {
    try {
      this.set({ config: await this.backend.config(), configError: '' })
    } catch (err) {
      this.set({ configError: errorText(err) })
    }
  }

  /**
   * Asks whether Ollama answers; when it does, lists its models. Quiet, the window does not
   * say it is checking (the polling while Ollama is away, the model menu opening).
   */
  async refreshOllama(quiet = false): Promise<void> {
    if (!quiet) this.set({ checkingOllama: true })
    try {
      const status = await this.backend.ollamaStatus()
      this.set({ ollama: status })
      this.watchOllama(status.running)
      if (status.running) {
        this.set({ models: await this.backend.models() })
        if (this.state.ready) void this.loadBudget() // at start, start() asks once the chat is open
      }
    } catch (err) {
      this.set({ ollama: { running: false, url: this.state.config?.ollamaUrl ?? '', version: '', error: errorText(err) } })
      this.watchOllama(false)
    } finally {
      if (!quiet) this.set({ checkingOllama: false })
    }
  }

  /**
   * Lists the server's models again, quietly (no "Checking…"): the first-model offer asks
   * while it is shown, so that a model pulled elsewhere (`prototyper pull`) appears.
   */
  async refreshModels(): Promise<void> {
    if (!this.state.ollama?.running) return
    try {
      const models = await this.backend.models()
      if (models.length !== this.state.models.length) this.set({ models })
    } catch {
      // The next check of Ollama says what is wrong.
    }
  }

  /** Loads the models the window offers when the server has none. */
  async loadStarters(): Promise<void> {
    try {
      this.set({ starters: await this.backend.starterModels() })
    } catch {
      // Without the list the offer still has the model menu's pull field.
    }
  }

  // ---- unsent text ------------------------------------------------------------------------
  // What is typed in a chat's box and not sent is kept by the Go side a moment after the
  // typing pauses (draftSaveMs), and at once when the app quits: quitting loses none of it.

  private drafts = new Map<string, string>()
  private draftSaves = new Map<string, ReturnType<typeof setTimeout>>()

  /** The unsent text of a chat ('' for the chat a first message starts), as last typed. */
  draftOf = (chatId: string): string => this.drafts.get(chatId) ?? ''

  /** The box of chatId holds text now; it is kept once the typing pauses. */
  draftChanged = (chatId: string, text: string): void => {
    if (this.draftOf(chatId) === text) return
    this.drafts.set(chatId, text)
    clearTimeout(this.draftSaves.get(chatId))
    // a box emptied (its message sent) is kept at once: a window closed right after a message
    // was sent does not give its text back as unsent
    if (text === '') void this.saveDraft(chatId)
    else this.draftSaves.set(chatId, setTimeout(() => void this.saveDraft(chatId), draftSaveMs))
  }

  /** Keeps every unsent text not kept yet, now. */
  async flushDrafts(): Promise<void> {
    const pending = [...this.draftSaves.keys()]
    for (const id of pending) clearTimeout(this.draftSaves.get(id))
    await Promise.all(pending.map((id) => this.saveDraft(id)))
  }

  private async saveDraft(chatId: string): Promise<void> {
    this.draftSaves.delete(chatId)
    try {
      await this.backend.saveDraft(chatId, this.draftOf(chatId))
    } catch {
      // the text stays in the box; the next key typed tries again
    }
  }

  /** The chat shown now is the one the app shows when it starts again. */
  private rememberOpenChat(): void {
    this.backend.setOpenChat(this.state.activeChatId ?? '').catch(() => {
      // the app then opens the newest chat, as it did before it remembered
    })
  }

  private async loadDrafts(): Promise<void> {
    try {
      for (const [id, text] of Object.entries(await this.backend.drafts())) if (!this.drafts.has(id)) this.drafts.set(id, text)
    } catch {
      // without them the boxes start empty, as before
    }
  }

  // ---- Ollama away and back ----------------------------------------------------------------
  // While Ollama does not answer, the window asks again by itself, waiting longer each time
  // (ollamaPollFirstMs doubling up to ollamaPollMaxMs); once it answers, the not-running panel
  // goes, and the errors it caused in the chats become notices of the messages left unanswered.

  private ollamaPoll: ReturnType<typeof setTimeout> | null = null
  private ollamaPollMs = 0

  private watchOllama(running: boolean): void {
    if (running) {
      this.ollamaPollMs = 0
      if (this.ollamaPoll) clearTimeout(this.ollamaPoll)
      this.ollamaPoll = null
      this.serverIsBack()
      return
    }
    if (this.ollamaPoll) return
    this.ollamaPollMs = Math.min(ollamaPollMaxMs, this.ollamaPollMs ? this.ollamaPollMs * 2 : ollamaPollFirstMs)
    this.ollamaPoll = setTimeout(() => {
      this.ollamaPoll = null
      void this.refreshOllama(true)
    }, this.ollamaPollMs)
  }

  /** A run failed because Ollama is away: the window says so at once, and watches for it. */
  private onServerGone(ev: AgentEvent): void {
    if (this.state.ollama && !this.state.ollama.running) return
    const url = this.state.ollama?.url || this.state.config?.ollamaUrl || ''
    this.set({ ollama: { running: false, url, version: '', error: ev.message ?? '' } })
    this.watchOllama(false)
  }

  private serverIsBack(): void {
    const chats = { ...this.state.chats }
    let changed = false
    for (const [id, c] of Object.entries(chats)) {
      const after = serverBack(c)
      if (after !== c) {
        chats[id] = after
        changed = true
      }
    }
    if (changed) this.set({ chats })
  }

  async refreshChats(): Promise<void> {
    try {
      const list = await this.backend.listChats()
      // Newest first; parsed, because Go writes a varying number of fraction digits.
      this.set({ chatList: [...list].sort((a, b) => (Date.parse(b.updatedAt) || 0) - (Date.parse(a.updatedAt) || 0)) })
    } catch (err) {
      this.fail(err)
    }
  }

  // ---- chats -----------------------------------------------------------------------------

  /**
   * Shows a chat; its history is read from the store the first time. The sentence of an action
   * that failed goes: it was about where the user was.
   */
  async selectChat(id: string | null): Promise<void> {
    if (id !== this.state.activeChatId) this.dismissError()
    this.set({ activeChatId: id })
    this.rememberOpenChat()
    void this.loadBudget()
    if (id === null || this.state.chats[id]?.loaded) return
    try {
      const opened = await this.backend.openChat(id)
      this.setChat(id, mergeLive(chatFromSnapshot(opened, id), this.state.chats[id]))
      this.setVersions(id, opened.versions)
    } catch (err) {
      this.fail(err)
    }
  }

  /** Starts an empty chat view; the chat is created by the first Send. */
  newChat(): void {
    if (this.state.activeChatId !== null) this.dismissError()
    this.set({ activeChatId: null })
    this.rememberOpenChat()
    void this.loadBudget()
  }

  async renameChat(id: string, title: string): Promise<void> {
    try {
      await this.backend.renameChat(id, title)
      this.set({ chatList: this.state.chatList.map((c) => (c.id === id ? { ...c, title } : c)) })
    } catch (err) {
      this.fail(err)
    }
  }

  async deleteChat(id: string): Promise<void> {
    try {
      await this.backend.deleteChat(id)
      const chats = { ...this.state.chats }
      delete chats[id]
      this.set({
        chats,
        chatList: this.state.chatList.filter((c) => c.id !== id),
        activeChatId: this.state.activeChatId === id ? null : this.state.activeChatId,
      })
    } catch (err) {
      this.fail(err)
    }
  }

  /** Image files the user picks in a dialog (base64); none when cancelled, and a failure is said. */
  async pickImages(): Promise<string[]> {
    try {
      return await this.backend.pickImages()
    } catch (err) {
      this.fail(err)
      return []
    }
  }

  /** Files of the workspace whose path contains query (the composer's @ completion); none on failure. */
  async workspaceFiles(query: string): Promise<string[]> {
    try {
      return await this.backend.workspaceFiles(query)
    } catch {
      return []
    }
  }

  /** Sends a message to the active chat (a new one when none is open), with images (base64) when given. */
  async send(prompt: string, images: string[] = []): Promise<void> {
    const text = prompt.trim()
    if (!text) return
    const chatId = this.state.activeChatId
    const localId = `local:${++localIds}`
    const waits = !!chatId && isStoppable(this.state.chats[chatId]?.phase ?? 'idle')
    if (chatId) {
      this.setChat(chatId, addLocalUserMessage(this.state.chats[chatId] ?? emptyChat(chatId), localId, text, false, images))
      if (waits) this.setQueued(chatId, [...(this.state.queued[chatId] ?? []), localId])
    }
    try {
      const res =
        images.length > 0
          ? await this.backend.sendImages(chatId ?? '', text, images)
          : await this.backend.send(chatId ?? '', text)
      this.dismissError() // sent: what failed before is behind the user
      if (!chatId) {
        const live = this.state.chats[res.chatId] ?? emptyChat(res.chatId)
        this.setChat(res.chatId, { ...addLocalUserMessage(live, localId, text, true, images), loaded: true })
        if (this.state.activeChatId === null) {
          this.set({ activeChatId: res.chatId })
          this.rememberOpenChat()
          void this.loadBudget()
        }
        void this.refreshChats()
      }
    } catch (err) {
      if (chatId) {
        const s = this.state.chats[chatId]
        if (s) this.setChat(chatId, { ...s, timeline: s.timeline.filter((e) => e.id !== localId) })
        this.setQueued(chatId, (this.state.queued[chatId] ?? []).filter((id) => id !== localId))
      }
      this.fail(err)
      throw err
    }
  }

  async stop(): Promise<void> {
    const id = this.state.activeChatId
    if (!id) return
    try {
      await this.backend.stop(id)
    } catch (err) {
      this.fail(err)
    }
  }

  /** The card of a call, in whichever chat holds it. */
  private cardOf(toolCallId: string): ToolCardModel | undefined {
    const active = this.state.activeChatId ? this.state.chats[this.state.activeChatId] : undefined
    if (active?.tools[toolCallId]) return active.tools[toolCallId]
    for (const chat of Object.values(this.state.chats)) if (chat.tools[toolCallId]) return chat.tools[toolCallId]
    return undefined
  }

  /** What the user chose on a waiting command's card; null for a call of another tool. */
  commandChoice(toolCallId: string): CommandChoice | null {
    const card = this.cardOf(toolCallId)
    if (card?.name !== 'run_command') return null
    return this.state.commandChoices[toolCallId] ?? { network: false, pattern: suggestedPattern(card) }
  }

  /** Changes what the user chose on a waiting command's card (ignored once it is answered). */
  setCommandChoice(toolCallId: string, patch: Partial<CommandChoice>): void {
    const now = this.commandChoice(toolCallId)
    if (!now || this.state.decisions[toolCallId]) return
    this.set({ commandChoices: { ...this.state.commandChoices, [toolCallId]: { ...now, ...patch } } })
  }

  /** Answers a tool call that waits for approval; a call is answered once. A command allowed with network says so. */
  async decide(toolCallId: string, decision: Decision, reason = ''): Promise<void> {
    if (this.state.decisions[toolCallId]) return
    const choice = this.commandChoice(toolCallId)
    this.set({ decisions: { ...this.state.decisions, [toolCallId]: decision } })
    try {
      if (decision === 'allow' && choice?.network) await this.backend.allowCommand(toolCallId, true, '')
      else await this.backend.decide(toolCallId, decision, reason)
    } catch (err) {
      // Refused: the buttons work again, and the error says why.
      const decisions = { ...this.state.decisions }
      delete decisions[toolCallId]
      this.set({ decisions })
      this.fail(err)
    }
  }

  /**
   * Answers the open chat's offer to summarize the older messages that no longer fit: the card
   * shows the answer at once (a second press finds no offer), and the chat goes on.
   */
  async answerSummary(choice: 'summarize' | 'leave_out'): Promise<void> {
    const chatId = this.state.activeChatId
    const chat = chatId ? this.state.chats[chatId] : undefined
    const offer = waitingOffer(chat)
    if (!chatId || !chat || !offer) return
    const answered = (c: OfferView['choice']) => {
      const now = this.state.chats[chatId]
      if (now?.offers[offer.id]) this.setChat(chatId, { ...now, offers: { ...now.offers, [offer.id]: { ...now.offers[offer.id], choice: c } } })
    }
    answered(choice)
    try {
      await this.backend.answerSummaryOffer(chatId, choice)
    } catch (err) {
      answered('') // refused: the buttons work again, and the error says why
      this.fail(err)
    }
  }

  /** Opens (or, with null, closes) the reason field of a waiting call. */
  askReason(toolCallId: string | null): void {
    this.set({ reasonFor: toolCallId })
  }

  /**
   * Allows the call and every later call of its tool in the chat's workspace; for a command,
   * every later command starting with the prefix the card shows (none written: nothing is done).
   */
  async allowAlways(toolCallId: string): Promise<void> {
    if (this.state.decisions[toolCallId]) return
    const choice = this.commandChoice(toolCallId)
    if (choice && !choice.pattern.trim()) return
    this.set({ decisions: { ...this.state.decisions, [toolCallId]: 'allow' } })
    try {
      if (choice) await this.backend.allowCommand(toolCallId, choice.network, choice.pattern.trim())
      else await this.backend.allowAlways(toolCallId)
      await this.loadConfig()
    } catch (err) {
      const decisions = { ...this.state.decisions }
      delete decisions[toolCallId]
      this.set({ decisions })
      this.fail(err)
    }
  }

  // ---- undo, redo, the review ----------------------------------------------------------

  /**
   * Takes back what the chat's runs changed (the newest run by default; see UndoOptions). A
   * refusal because files changed since is kept in undoConflict, so the window can offer to keep
   * the user's version beside the restored one, or to overwrite it.
   */
  async undo(opts: UndoOptions = {}, chatId = this.state.activeChatId ?? ''): Promise<void> {
    await this.revert(chatId, false, opts)
  }

  async redo(opts: UndoOptions = {}, chatId = this.state.activeChatId ?? ''): Promise<void> {
    await this.revert(chatId, true, opts)
  }

  private async revert(chatId: string, redo: boolean, opts: UndoOptions): Promise<void> {
    if (!chatId) return
    this.set({ undoConflict: null, undoNote: null })
    try {
      const res = redo ? await this.backend.redo(chatId, opts) : await this.backend.undo(chatId, opts)
      const kept = res.kept?.length ? ` Your version is kept in ${res.kept.join(', ')}.` : ''
      const lost = (res.notPutBack ?? []).map((n) => ` ${n.sentence}.`).join('')
      this.set({ undoNote: { chatId, text: `${undoneText(redo, res)}${kept}${lost}` } })
      if (this.state.review?.chatId === chatId) void this.loadReview(chatId)
    } catch (err) {
      const message = errorText(err)
      // A refusal because files changed since (agentloop.ConflictError) says nothing was done;
      // so does a Keep refused (a version too large to keep): the choice stays open.
      if ((/^nothing was (undone|redone):/.test(message) || opts.keep) && !opts.force) {
        this.set({ undoConflict: { chatId, redo, opts: { ...opts, keep: undefined }, message } })
      } else {
        this.fail(err)
      }
    }
  }

  /** Answers a refused undo or redo: keep the user's version beside the restored one, or overwrite it. */
  async resolveConflict(choice: 'keep' | 'force' | 'cancel'): Promise<void> {
    const c = this.state.undoConflict
    if (!c) return
    this.set({ undoConflict: null })
    if (choice === 'cancel') return
    await this.revert(c.chatId, c.redo, { ...c.opts, [choice]: true })
  }

  dismissUndoNote = (): void => this.set({ undoNote: null })

  /** Opens the review of the chat's changed files, or reads it again. */
  async loadReview(chatId = this.state.activeChatId ?? ''): Promise<void> {
    if (!chatId) return
    this.set({ review: { chatId, files: this.state.review?.chatId === chatId ? this.state.review.files : [], loading: true } })
    try {
      const files = await this.backend.chatChanges(chatId)
      if (this.state.review?.chatId === chatId) this.set({ review: { chatId, files, loading: false } })
    } catch (err) {
      this.set({ review: null })
      this.fail(err)
    }
  }

  closeReview = (): void => this.set({ review: null })

  /**
   * Opens a path of the active chat's workspace with the system's app, or the folder holding it;
   * given the tool call whose card it is on, in the folder that call wrote it in; given the
   * folder the review names for it, in that folder.
   */
  async openPath(path: string, inFolder: boolean, from?: { toolCallId?: string; workspace?: string }): Promise<void> {
    const chatId = this.state.activeChatId
    if (!chatId) return
    try {
      await (from?.toolCallId
        ? this.backend.openCallPath(chatId, from.toolCallId, path, inFolder)
        : from?.workspace
          ? this.backend.openChangedPath(chatId, from.workspace, path, inFolder)
          : this.backend.openPath(chatId, path, inFolder))
    } catch (err) {
      this.fail(err)
    }
  }

  // ---- a chat's own folder and model ------------------------------------------------------
  // The header shows the open chat's folder and model. Picking another one while a chat is
  // open asks (pendingChange) whether it is for this chat, from its next message on, or for
  // a new chat; with no chat open it is what the next new chat takes.

  /** Asks for a folder with the native dialog, then as requestFolder. */
  async chooseFolder(): Promise<void> {
    try {
      const dir = await this.backend.chooseFolder(headerWorkspace(this.state))
      if (dir) await this.requestFolder(dir)
    } catch (err) {
      this.fail(err, 'folder')
    }
  }

  /** The user picked a folder in the header. */
  async requestFolder(dir: string): Promise<void> {
    const open = activeSummary(this.state)
    if (open) {
      if (open.workspace !== dir) this.set({ pendingChange: { kind: 'workspace', value: dir, chatId: open.id } })
      return
    }
    try {
      await this.backend.useFolder(dir)
      this.folderPicked()
      await this.loadConfig()
      void this.loadBudget()
    } catch (err) {
      this.fail(err, 'folder')
    }
  }

  /** The user picked a model in the header. */
  async requestModel(name: string): Promise<void> {
    const open = activeSummary(this.state)
    if (!open) return this.setModel(name)
    if (!sameModel(open.model ?? '', name)) this.set({ pendingChange: { kind: 'model', value: name, chatId: open.id } })
  }

  /** Applies the pending change to its chat, or starts a new chat with it. */
  async applyChange(to: 'chat' | 'new'): Promise<void> {
    const change = this.state.pendingChange
    if (!change) return
    this.set({ pendingChange: null })
    try {
      if (to === 'new') {
        if (change.kind === 'workspace') await this.backend.useFolder(change.value)
        else await this.backend.setModel(change.value)
        this.newChat()
      } else {
        const c =
          change.kind === 'workspace'
            ? await this.backend.setChatWorkspace(change.chatId, change.value)
            : await this.backend.setChatModel(change.chatId, change.value)
        this.set({ chatList: this.state.chatList.map((x) => (x.id === c.id ? { ...x, workspace: c.workspace, model: c.model } : x)) })
      }
      if (change.kind === 'workspace') this.folderPicked()
      await this.loadConfig()
      void this.loadBudget()
    } catch (err) {
      this.fail(err, change.kind === 'workspace' ? 'folder' : null)
    }
  }

  cancelChange = (): void => this.set({ pendingChange: null })

  /** Quits the app (Ctrl+Q), as closing its window does, once the unsent texts are kept. */
  quit = (): void => {
    void Promise.race([this.flushDrafts(), new Promise((done) => setTimeout(done, 1000))]).finally(() => this.backend.quit())
  }

  /** Sets the window's title. */
  setTitle(title: string): void {
    this.backend.setTitle(title)
  }

  /** Chats whose title or messages hold the query, newest first. */
  searchChats(query: string): Promise<ChatHit[]> {
    return this.backend.searchChats(query)
  }

  /** The MCP servers of a folder's own file the user has not answered about, or (again) refused (null: none, or it could not be asked). */
  async workspaceServersToAsk(dir: string, again = false): Promise<WorkspaceServers | null> {
    try {
      return await this.backend.workspaceServersToAsk(dir, again)
    } catch (err) {
      this.fail(err)
      return null
    }
  }

  /** Answers whether the folder's own MCP servers, as shown (hash), may start. */
  async answerWorkspaceServers(dir: string, hash: string, allow: boolean): Promise<void> {
    try {
      await (allow ? this.backend.allowWorkspaceServers(dir, hash) : this.backend.refuseWorkspaceServers(dir, hash))
    } catch (err) {
      this.fail(err)
    }
  }

  // ---- versions: edit and resend, regenerate ---------------------------------------------

  private setVersions(chatId: string, versions: Version[] | null | undefined): void {
    this.set({ versions: { ...this.state.versions, [chatId]: versions ?? [] } })
  }

  /**
   * The stored id of a message shown in the open chat. A message typed in this window keeps
   * the id it was shown with until the chat is read again: then it is read again (the chat is
   * idle) and found at the same place among the user's messages.
   */
  private async storedId(chatId: string, id: string): Promise<string> {
    if (!id.startsWith('local:')) return id
    const before = this.state.chats[chatId]
    const users = (c: ChatState) => c.timeline.filter((e) => e.kind === 'message' && c.messages[e.id]?.role === 'user').map((e) => e.id)
    const at = before ? users(before).indexOf(id) : -1
    const opened = await this.backend.openChat(chatId)
    const fresh = { ...chatFromSnapshot(opened, chatId), lastSeq: before?.lastSeq ?? 0, recentSeqs: before?.recentSeqs ?? [] }
    this.setChat(chatId, fresh)
    this.setVersions(chatId, opened.versions)
    return users(fresh)[at] ?? ''
  }

  /**
   * Sends text in place of the user message messageId: the chat goes on from there, and what
   * followed stays reachable as an earlier version.
   */
  async editAndResend(messageId: string, text: string): Promise<void> {
    const chatId = this.state.activeChatId
    const content = text.trim()
    if (!chatId || !content) return
    try {
      const id = await this.storedId(chatId, messageId)
      const chat = this.state.chats[chatId]
      const at = chat ? chat.timeline.findIndex((e) => e.kind === 'message' && e.id === id) : -1
      if (!chat || at < 0) return
      const isUser = (c: ChatState, e: TimelineEntry) => e.kind === 'message' && c.messages[e.id]?.role === 'user'
      const usersBefore = chat.timeline.slice(0, at).filter((e) => isUser(chat, e)).length
      await this.backend.editAndResend(chatId, id, content)
      // The edited message is stored when the call returns: the chat is read again for its id
      // and its versions; what the run sent meanwhile follows it.
      const opened = await this.backend.openChat(chatId)
      const snap = chatFromSnapshot(opened, chatId)
      const newId = snap.timeline.filter((e) => isUser(snap, e))[usersBefore]?.id
      const now = this.state.chats[chatId] ?? chat
      const before = new Set(chat.timeline.map((e) => `${e.kind}:${e.id}`))
      const added = now.timeline.filter((e) => !before.has(`${e.kind}:${e.id}`) && e.id !== newId)
      const kept = now.timeline.slice(0, at)
      const messages = { ...now.messages }
      let timeline = kept
      if (newId && snap.messages[newId]) {
        messages[newId] = snap.messages[newId]
        timeline = [...kept, { kind: 'message', id: newId }]
      }
      this.setChat(chatId, { ...now, messages, timeline: [...timeline, ...added] })
      this.setVersions(chatId, opened.versions)
      void this.refreshChats()
    } catch (err) {
      this.fail(err)
    }
  }

  /** Opens a user message of the open chat for editing ('' closes it). */
  edit = (messageId: string): void => this.set({ editing: messageId })

  /**
   * Opens the last message the user wrote in the open chat for editing (↑ in an empty
   * composer); false when there is none or the chat runs.
   */
  editLast = (): boolean => {
    const chat = this.state.activeChatId ? this.state.chats[this.state.activeChatId] : undefined
    if (!chat || chat.phase !== 'idle') return false
    for (let i = chat.timeline.length - 1; i >= 0; i--) {
      const e = chat.timeline[i]
      if (e.kind === 'message' && chat.messages[e.id]?.role === 'user') {
        this.edit(e.id)
        return true
      }
    }
    return false
  }

  /**
   * Retry after an error: sends the last message of the user again, as a new version of
   * the chat from there (what the failed attempt left stays reachable).
   */
  async retry(): Promise<void> {
    const chat = this.state.activeChatId ? this.state.chats[this.state.activeChatId] : undefined
    if (!chat || chat.phase !== 'idle') return
    for (let i = chat.timeline.length - 1; i >= 0; i--) {
      const e = chat.timeline[i]
      const m = e.kind === 'message' ? chat.messages[e.id] : undefined
      if (m?.role === 'user') return this.editAndResend(m.id, m.content)
    }
  }

  // ---- queued follow-ups -------------------------------------------------------------------

  private setQueued(chatId: string, ids: string[]): void {
    this.set({ queued: { ...this.state.queued, [chatId]: ids } })
  }

  // The run takes queued messages oldest first: each injected one is announced (steering); a
  // run started after one ended takes all that were left. A stopped run takes none: those
  // leave the chat and their text goes back to the composer, so that nothing typed is lost.
  private takeFromQueue(chatId: string, evs: AgentEvent[], chat: ChatState): ChatState {
    let q = this.state.queued[chatId]
    if (!q?.length) return chat
    let given: string[] = []
    for (const e of evs) {
      if (e.type === 'message.started' && e.role === 'user' && e.trigger === 'steering') q = q.slice(1)
      else if (e.type === 'run.started') q = []
      // a stopped run, or a summary offer closed by a Stop while messages waited for its answer
      else if ((e.type === 'run.finished' && e.stopReason === 'aborted') || (e.type === 'context.summary_answered' && e.choice === 'none')) {
        given = q
        q = []
      }
    }
    if (q !== this.state.queued[chatId]) this.setQueued(chatId, q)
    if (given.length === 0) return chat
    const texts = given.map((id) => chat.messages[id]?.content ?? '').filter(Boolean)
    const draft = [this.state.restoredDraft, ...texts].filter(Boolean).join('\n\n')
    const images = [...this.state.restoredImages, ...given.flatMap((id) => chat.messages[id]?.images ?? [])]
    this.set({ restoredDraft: draft, restoredImages: images })
    const gone = new Set(given)
    return { ...chat, timeline: chat.timeline.filter((e) => !gone.has(e.id)) }
  }

  /** The composer took the text given back to it. */
  takeRestoredDraft = (): string => {
    const text = this.state.restoredDraft
    if (text) this.set({ restoredDraft: '' })
    return text
  }

  /** The composer took the images given back to it. */
  takeRestoredImages = (): string[] => {
    const images = this.state.restoredImages
    if (images.length) this.set({ restoredImages: [] })
    return images
  }

  /** Changes a message that waits for the run (an empty text takes it back). */
  async editQueued(localId: string, text: string): Promise<void> {
    const chatId = this.state.activeChatId
    const q = chatId ? (this.state.queued[chatId] ?? []) : []
    const index = q.indexOf(localId)
    if (!chatId || index < 0) return
    try {
      await this.backend.editQueued(chatId, index, text.trim())
      const chat = this.state.chats[chatId]
      if (text.trim()) {
        const m = chat?.messages[localId]
        if (chat && m) this.setChat(chatId, { ...chat, messages: { ...chat.messages, [localId]: { ...m, content: text.trim() } } })
      } else {
        if (chat) this.setChat(chatId, { ...chat, timeline: chat.timeline.filter((e) => e.id !== localId) })
        this.setQueued(chatId, q.filter((id) => id !== localId))
      }
    } catch (err) {
      this.fail(err)
    }
  }

  /** Sends again the user message an answer replied to: a new version of the answer. */
  async regenerate(answerId: string): Promise<void> {
    const chatId = this.state.activeChatId
    const chat = chatId ? this.state.chats[chatId] : undefined
    if (!chat) return
    const at = chat.timeline.findIndex((e) => e.id === answerId)
    for (let i = at - 1; i >= 0; i--) {
      const e = chat.timeline[i]
      const m = e.kind === 'message' ? chat.messages[e.id] : undefined
      if (m?.role === 'user') return this.editAndResend(m.id, m.content)
    }
  }

  /** Shows version `index` (1-based) of the history at the message that starts the one shown. */
  async showVersion(messageId: string, index: number): Promise<void> {
    const chatId = this.state.activeChatId
    const chat = chatId ? this.state.chats[chatId] : undefined
    const v = chatId ? this.state.versions[chatId]?.find((x) => x.messageId === messageId) : undefined
    if (!chatId || !chat || !v || index < 1 || index > v.count || index === v.index) return
    try {
      const opened = await this.backend.showVersion(chatId, messageId, index)
      this.setChat(chatId, { ...chatFromSnapshot(opened, chatId), lastSeq: chat.lastSeq, recentSeqs: chat.recentSeqs })
      this.setVersions(chatId, opened.versions)
      void this.refreshChats()
    } catch (err) {
      this.fail(err)
    }
  }

  // ---- workspace, model, settings ---------------------------------------------------------

  async pickWorkspace(): Promise<void> {
    try {
      const dir = await this.backend.pickWorkspace()
      if (!dir) return
      this.folderPicked()
      await this.loadConfig()
    } catch (err) {
      this.fail(err, 'folder')
    }
  }

  async setModel(name: string): Promise<void> {
    try {
      await this.backend.setModel(name)
      const config = this.state.config
      if (config) this.set({ config: { ...config, model: name } })
      else await this.loadConfig()
      void this.loadBudget()
    } catch (err) {
      this.fail(err)
    }
  }

  async saveSettings(settings: Settings): Promise<void> {
    await this.backend.saveSettings(settings)
    // The context cap may have changed: every budget is asked again.
    this.set({ budgets: {} })
    await this.loadConfig()
    await this.refreshOllama()
    void this.loadBudget()
  }

  /** Pulls a model; progress arrives as "pull.progress" events in the batch stream. */
  async pullModel(name: string): Promise<void> {
    const model = name.trim()
    if (!model) return
    this.setPull(model, { name: model, status: 'starting', total: 0, completed: 0, bytesPerSec: 0, error: '', done: false })
    try {
      await this.backend.pullModel(model)
      this.setPull(model, { ...this.state.pulls[model], status: 'success', done: true })
      await this.refreshOllama()
      // A first model, or one replacing a model the server does not have, is the one to use.
      const current = this.state.config?.model ?? ''
      if (!current || !findModel(this.state.models, current)) await this.setModel(model)
    } catch (err) {
      this.setPull(model, { ...this.state.pulls[model], error: errorText(err), done: true })
    }
  }

  dismissPull(name: string): void {
    const pulls = { ...this.state.pulls }
    delete pulls[name]
    this.set({ pulls })
  }

  private setPull(name: string, p: PullState): void {
    this.set({ pulls: { ...this.state.pulls, [name]: p } })
  }

  /** Applies a pull's event (progress, or the error that ends it); false for any other. */
  private takePullEvent(ev: AgentEvent): boolean {
    if (ev.type === 'pull.progress' && ev.model) {
      this.onPullProgress({ name: ev.model, status: ev.status ?? '', digest: ev.digest, total: ev.total, completed: ev.completed })
      return true
    }
    if (ev.type === 'error' && !ev.chatId && ev.model) {
      const prev = this.state.pulls[ev.model]
      if (prev) this.setPull(ev.model, { ...prev, error: ev.message || ev.code || 'The download failed.', done: true })
      return true
    }
    return false
  }

  private onPullProgress(p: PullProgress): void {
    const prev = this.state.pulls[p.name] ?? {
      name: p.name,
      status: '',
      total: 0,
      completed: 0,
      bytesPerSec: 0,
      error: '',
      done: false,
    }
    const now = this.now()
    const completed = p.completed ?? 0
    let speed = prev.bytesPerSec
    const sample = this.pullSamples.get(p.name)
    // A new digest restarts the byte count; the speed is only measured within one digest.
    if (sample && completed >= sample.completed && now > sample.at) {
      const instant = ((completed - sample.completed) * 1000) / (now - sample.at)
      speed = speed === 0 ? instant : speed * 0.7 + instant * 0.3
    }
    this.pullSamples.set(p.name, { at: now, completed })
    this.setPull(p.name, { ...prev, status: p.status, total: p.total ?? prev.total, completed, bytesPerSec: speed })
  }
}
