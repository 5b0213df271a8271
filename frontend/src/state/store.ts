// The window's one store, outside React (components read it with useSyncExternalStore through
// useAppState). It is a facade: each concern lives in its own file with its own tests, and
// changes the one state held by a StateCell (appState.ts):
//
//   feed.ts         every "agent:batch", applied in seq order, and its paint acknowledgement
//   drafts.ts       the unsent text and images of each chat's box
//   serverWatch.ts  whether the model server answers, its models, asking again while it is away
//   pulls.ts        downloads of models
//   checks.ts       the model check run from the model menu
//   approvals.ts    answers to waiting tool calls and to the summary offer
//   undoReview.ts   undo, redo, the review of changed files
//   settings.ts     the settings, the folder and model picked in the header, MCP servers asked
//   session.ts      the open chat, the list of chats, send and stop, queued messages
//   versions.ts     edit and resend, regenerate, retry, earlier versions

import type { AgentEvent, Backend, FolderCheck } from '../backend'
import { StateCell, type AppState } from './appState'
import { Approvals } from './approvals'
import { Drafts } from './drafts'
import { Feed } from './feed'
import { Pulls } from './pulls'
import { ModelChecks } from './checks'
import { ServerWatch } from './serverWatch'
import { Session } from './session'
import { SettingsAndPicks } from './settings'
import { UndoReview } from './undoReview'
import { Versions } from './versions'

export * from './appState'
export { filesAndFolders, pathList, runChangeText, undoneText } from './changeText'
export { suggestedPattern } from './approvals'
export { draftSaveMs } from './drafts'
export { runningToolIdsInDocument } from './feed'
export { ollamaPollFirstMs, ollamaPollMaxMs } from './serverWatch'

export interface StoreOptions {
  backend: Backend
  /** requestAnimationFrame, injectable so tests drive frames by hand. */
  requestFrame?: (cb: () => void) => void
  /** Ids of the tool cards shown as running in the DOM; read for each paint ack. */
  runningToolIdsInDom?: () => string[]
  now?: () => number
}

export class AppStore {
  private readonly cell: StateCell
  private readonly feed: Feed
  private readonly drafts: Drafts
  private readonly server: ServerWatch
  private readonly pulls: Pulls
  private readonly checks: ModelChecks
  private readonly approvals: Approvals
  private readonly undoReview: UndoReview
  private readonly settings: SettingsAndPicks
  private readonly session: Session
  private readonly versions: Versions
  private unsubscribers: Array<() => void> = []

  constructor(opts: StoreOptions) {
    const cell = (this.cell = new StateCell(opts.backend))
    this.drafts = new Drafts(opts.backend)
    this.settings = new SettingsAndPicks(cell, {
      openNewChat: () => this.session.newChat(),
      refreshOllama: () => this.server.refreshOllama(),
    })
    const loadBudget = () => this.settings.loadBudget()
    // at start, start() asks for the budget once the chat is open
    this.server = new ServerWatch(cell, () => void (cell.get().ready && loadBudget()))
    this.pulls = new Pulls(cell, { refreshOllama: () => this.server.refreshOllama(), setModel: (m) => this.settings.setModel(m) }, opts.now)
    this.checks = new ModelChecks(cell)
    this.approvals = new Approvals(cell, () => this.settings.loadConfig())
    this.undoReview = new UndoReview(cell)
    this.session = new Session(cell, {
      loadBudget,
      keepUnsent: (id, text, images) => this.drafts.giveBack(id, text, images),
      loadConfig: () => this.settings.loadConfig(),
    })
    this.versions = new Versions(cell, { refreshChats: () => this.session.refreshChats() })
    this.feed = new Feed(
      cell,
      {
        // a model's download goes to the pulls; a preview report and the development servers'
        // events are the Preview pane's (state/preview.ts, state/devServers.ts)
        takeOther: (ev) => this.pulls.takeEvent(ev) || this.checks.takeEvent(ev) || ev.type === 'preview.report' || ev.type.startsWith('server.'),
        notice: (ev) => this.server.notice(ev),
        afterEvents: (chatId, evs, chat) => {
          const kept = this.session.takeFromQueue(chatId, evs, chat)
          this.undoReview.follow(chatId, evs)
          return kept
        },
        applied: (byChat) => {
          const runs = [...byChat.values()].some((evs) => evs.some((e) => e.type === 'run.finished' || e.type === 'run.started'))
          if (runs) void this.session.refreshChats()
        },
      },
      opts,
    )
  }

  getState = (): AppState => this.cell.get()
  subscribe = (listener: () => void): (() => void) => this.cell.subscribe(listener)
  dismissError = (): void => this.cell.dismissError()

  /** Subscribes to the Go side and loads config, Ollama status, models and chats. */
  async start(): Promise<void> {
    const backend = this.cell.backend
    this.unsubscribers.push(backend.onBatch((events) => this.ingest(events)))
    if (typeof document !== 'undefined') {
      const onVisibility = () => void backend.setVisible(!document.hidden).catch(() => {})
      document.addEventListener('visibilitychange', onVisibility)
      this.unsubscribers.push(() => document.removeEventListener('visibilitychange', onVisibility))
      onVisibility()
    }
    try {
      const last = backend.lastOpenChat().catch(() => '')
      const [, , , , kept] = await Promise.all([this.loadConfig(), this.refreshOllama(), this.refreshChats(), this.loadStarters(), this.drafts.load(), this.checks.load()])
      // Coming back to the app shows the chat you were in (else the newest one), unless a chat
      // was already chosen, or started — typing in the new chat's box starts one — meanwhile. A
      // new chat left with unsent text in its box is the chat you were in: it shows again.
      const lastId = await last
      const s = this.cell.get()
      const newChatLeft = lastId === '' && (!!kept.texts['']?.trim() || !!kept.images['']?.length)
      const back = s.chatList.find((c) => c.id === lastId) ?? (newChatLeft ? undefined : s.chatList[0])
      const typed = this.draftOf('') !== (kept.texts[''] ?? '')
      if (back && s.activeChatId === null && !typed) await this.selectChat(back.id)
      else void this.loadBudget()
      // the box of a chat opened above takes its unsent text as it moves there; a new chat's
      // box, open from the start, is given what was kept for it (not what was typed in it while
      // that was read: the box holds that already), and told at once when its folder is gone
      if (this.cell.get().activeChatId === null) this.session.giveBack('', kept.texts[''] ?? '', kept.images[''] ?? [])
      const problem = this.cell.get().config?.workspaceProblem
      if (this.cell.get().activeChatId === null && problem) this.cell.fail(problem, 'folder')
    } finally {
      this.cell.set({ ready: true })
    }
  }

  stopListening(): void {
    for (const u of this.unsubscribers.splice(0)) u()
    this.server.stop()
  }

  /** Quits the app (Ctrl+Q), as closing its window does, once the unsent texts are kept. */
  quit = (): void => {
    void Promise.race([this.flushDrafts(), new Promise((done) => setTimeout(done, 1000))]).finally(() => this.cell.backend.quit())
  }

  /** Sets the window's title. */
  setTitle(title: string): void {
    this.cell.backend.setTitle(title)
  }

  // ---- feed ------------------------------------------------------------------------------
  ingest = (batch: AgentEvent[]): void => this.feed.ingest(batch)

  // ---- unsent text -----------------------------------------------------------------------
  draftOf = (chatId: string): string => this.drafts.draftOf(chatId)
  draftChanged = (chatId: string, text: string): void => this.drafts.draftChanged(chatId, text)
  flushDrafts = (): Promise<void> => this.drafts.flush()
  draftImagesOf = (chatId: string): string[] => this.drafts.imagesOf(chatId)
  draftImagesChanged = (chatId: string, images: string[]): void => this.drafts.imagesChanged(chatId, images)

  // ---- the model server and pulls --------------------------------------------------------
  refreshOllama = (quiet = false): Promise<void> => this.server.refreshOllama(quiet)
  refreshModels = (): Promise<void> => this.server.refreshModels()
  loadStarters = (): Promise<void> => this.server.loadStarters()
  pullModel = (name: string): Promise<void> => this.pulls.pullModel(name)
  dismissPull = (name: string): void => this.pulls.dismissPull(name)
  loadModelChecks = (): Promise<void> => this.checks.load()
  checkModel = (name: string): Promise<void> => this.checks.check(name)
  stopModelCheck = (name: string): Promise<void> => this.checks.stop(name)

  // ---- session ---------------------------------------------------------------------------
  refreshChats = (): Promise<void> => this.session.refreshChats()
  selectChat = (id: string | null): Promise<void> => this.session.selectChat(id)
  newChat = (): void => this.session.newChat()
  renameChat = (id: string, title: string): Promise<void> => this.session.renameChat(id, title)
  deleteChat = (id: string): Promise<void> => this.session.deleteChat(id)
  send = (prompt: string, images: string[] = []): Promise<void> => {
    const box = this.cell.get().activeChatId ?? '' // the box the message leaves
    const sent = this.session.send(prompt, images)
    this.drafts.sending(box, sent)
    return sent
  }
  stop = (): Promise<void> => this.session.stop()
  editQueued = (localId: string, text: string): Promise<void> => this.session.editQueued(localId, text)
  takeRestoredDraft = (): string => this.session.takeRestoredDraft()
  takeRestoredImages = (): string[] => this.session.takeRestoredImages()
  attachImages = (images: string[]): void => this.session.attachImages(images)
  pickImages = (): Promise<string[]> => this.session.pickImages()
  workspaceFiles = (query: string): Promise<string[]> => this.session.workspaceFiles(query)
  searchChats = (query: string) => this.session.searchChats(query)

  // ---- versions --------------------------------------------------------------------------
  editAndResend = (messageId: string, text: string): Promise<void> => this.versions.editAndResend(messageId, text)
  edit = (messageId: string): void => this.versions.edit(messageId)
  editLast = (): boolean => this.versions.editLast()
  retry = (): Promise<void> => this.versions.retry()
  regenerate = (answerId: string): Promise<void> => this.versions.regenerate(answerId)
  showVersion = (messageId: string, index: number): Promise<void> => this.versions.showVersion(messageId, index)

  // ---- approvals -------------------------------------------------------------------------
  commandChoice = (toolCallId: string) => this.approvals.commandChoice(toolCallId)
  setCommandChoice: Approvals['setCommandChoice'] = (toolCallId, patch) => this.approvals.setCommandChoice(toolCallId, patch)
  decide: Approvals['decide'] = (toolCallId, decision, reason) => this.approvals.decide(toolCallId, decision, reason)
  allowAlways = (toolCallId: string): Promise<void> => this.approvals.allowAlways(toolCallId)
  askReason = (toolCallId: string | null): void => this.approvals.askReason(toolCallId)
  answerSummary: Approvals['answerSummary'] = (choice) => this.approvals.answerSummary(choice)

  // ---- undo, redo, the review ------------------------------------------------------------
  undo: UndoReview['undo'] = (opts, chatId) => this.undoReview.undo(opts, chatId)
  redo: UndoReview['redo'] = (opts, chatId) => this.undoReview.redo(opts, chatId)
  resolveConflict: UndoReview['resolveConflict'] = (choice) => this.undoReview.resolveConflict(choice)
  dismissUndoNote = (): void => this.undoReview.dismissUndoNote()
  loadReview: UndoReview['loadReview'] = (chatId) => this.undoReview.loadReview(chatId)
  closeReview = (): void => this.undoReview.closeReview()
  openPath: UndoReview['openPath'] = (path, inFolder, from) => this.undoReview.openPath(path, inFolder, from)

  // ---- settings, folder and model --------------------------------------------------------
  loadConfig = (): Promise<void> => this.settings.loadConfig()
  loadBudget = (): Promise<void> => this.settings.loadBudget()
  pickWorkspace = (): Promise<void> => this.settings.pickWorkspace()
  setModel = (name: string): Promise<void> => this.settings.setModel(name)
  setSidebar: SettingsAndPicks['setSidebar'] = (choice) => this.settings.setSidebar(choice)
  saveSettings: SettingsAndPicks['saveSettings'] = (settings) => this.settings.saveSettings(settings)
  chooseFolder = (): Promise<void> => this.settings.chooseFolder()
  requestFolder = (dir: string): Promise<void> => this.settings.requestFolder(dir)
  checkFolder = (dir: string): Promise<FolderCheck> => this.settings.checkFolder(dir)
  createFolder = (dir: string): Promise<void> => this.settings.createFolder(dir)
  requestModel = (name: string): Promise<void> => this.settings.requestModel(name)
  applyChange: SettingsAndPicks['applyChange'] = (to) => this.settings.applyChange(to)
  cancelChange = (): void => this.settings.cancelChange()
  workspaceServersToAsk: SettingsAndPicks['workspaceServersToAsk'] = (dir, again) => this.settings.workspaceServersToAsk(dir, again)
  answerWorkspaceServers: SettingsAndPicks['answerWorkspaceServers'] = (dir, hash, allow) =>
    this.settings.answerWorkspaceServers(dir, hash, allow)
}
