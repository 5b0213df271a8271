// A Backend that lives in memory: used by the tests, and by `npm run dev` in a plain browser
// where there is no Go side. It records every call and lets the caller emit event batches.

import type {
  AgentEvent,
  Backend,
  ChatHit,
  ChatSummary,
  Config,
  Decision,
  FileChange,
  FolderCheck,
  ModelInfo,
  OllamaStatus,
  StarterModel,
  OpenedChat,
  PromptBudget,
  PullProgress,
  ModelCheck,
  Settings,
  SidebarChoice,
  UndoOptions,
  UndoResult,
  WorkspaceServers,
  PreviewPage,
  DevServer,
} from './backend'

export interface FakeCall {
  method: string
  args: unknown[]
}

export class FakeBackend implements Backend {
  calls: FakeCall[] = []
  cfg: Config = {
    workspace: '/home/me/project',
    model: 'qwen3:4b',
    ollamaUrl: 'http://127.0.0.1:11434',
    provider: 'ollama',
    theme: 'system',
    saved: { think: 'on', contextCap: 8192, commandDeny: null },
    defaults: { think: 'on', contextCap: 16384, checkpointMaxBytes: 16 << 20, loopRepeats: 3, olderTurns: 'ask', commandDeny: ['rm -rf /'] },
    toolApproval: { write_file: 'auto', read_file: 'auto', list_dir: 'auto' },
    tools: ['read_file', 'write_file', 'list_dir'],
    dbPath: '/tmp/prototyper.db',
  }
  status: OllamaStatus = { running: true, url: 'http://127.0.0.1:11434', version: '0.11.4', error: '' }
  modelList: ModelInfo[] = [
    { name: 'qwen3:4b', size: 2.5e9, parameterSize: '4.0B', family: 'qwen3', tools: true, thinking: true, contextLength: 40960 },
    { name: 'gemma3:1b', size: 8.1e8, parameterSize: '1B', family: 'gemma3', tools: false, thinking: false, contextLength: 32768 },
  ]
  starters: StarterModel[] = [
    { name: 'qwen3:4b', size: 2.5e9, parameterSize: '4B', goodAt: 'Thinks, calls tools reliably.', recommended: true, minMemory: 8 * 2 ** 30, why: 'It fits this machine’s 16 GB of memory.' },
    { name: 'qwen3:8b', size: 5.2e9, parameterSize: '8B', goodAt: 'Better plans and code.', minMemory: 16 * 2 ** 30 },
  ]
  chats: ChatSummary[] = []
  opened: Record<string, OpenedChat> = {}
  /** What PromptBudget answers (a model with a 40k context, as qwen3:4b has). */
  budget: PromptBudget = { model: 'qwen3:4b', numCtx: 40960, maxTokens: 32000, charsPerToken: 3.5, perMessageTokens: 4 }
  /** Set to make the next Send resolve with this chat id (default: the given id or "chat-N"). */
  nextChatId = ''
  private batchHandlers = new Set<(events: AgentEvent[]) => void>()
  private seq = 0
  private chatCount = 0
  /** Called after each Send with the chat it went to (the browser demo answers through it). */
  onSend: ((chatId: string, prompt: string) => void) | null = null
  /** Resolves the current PullModel call. */
  finishPull: (() => void) | null = null

  /** Whether calls are recorded in `calls` (the browser demo turns it off for long runs). */
  recordCalls = true

  private record(method: string, ...args: unknown[]): void {
    if (this.recordCalls) this.calls.push({ method, args })
  }

  /** Calls of one method, oldest first. */
  callsOf(method: string): unknown[][] {
    return this.calls.filter((c) => c.method === method).map((c) => c.args)
  }

  /** Delivers one "agent:batch". */
  emit(events: Array<Partial<AgentEvent> & Pick<AgentEvent, 'type'>>): AgentEvent[] {
    const full = events.map((e) => ({
      v: 1,
      seq: e.seq ?? ++this.seq,
      chatId: 'c1',
      at: new Date().toISOString(),
      ...e,
    })) as AgentEvent[]
    for (const e of full) this.seq = Math.max(this.seq, e.seq)
    for (const h of this.batchHandlers) h(full)
    return full
  }

  /** Sends a pull's progress as the Go side does: a "pull.progress" event of no chat. */
  emitPull(p: PullProgress): void {
    this.emit([{ type: 'pull.progress', chatId: '', model: p.name, status: p.status, digest: p.digest, total: p.total, completed: p.completed }])
  }

  async config() {
    this.record('Config')
    return { ...this.cfg }
  }
  async saveSettings(s: Settings) {
    this.record('SaveSettings', s)
    // as the Go side: the session keeps its folder, model and the fields the panel does not edit
    const saved = { ...s, workspace: this.cfg.workspace, defaultModel: this.cfg.model, sidebar: this.cfg.saved.sidebar, recentFolders: this.cfg.saved.recentFolders }
    const provider = s.provider ?? 'ollama'
    const instructions = s.instructions?.[this.cfg.workspace]
    this.cfg = { ...this.cfg, saved, provider, ollamaUrl: s.ollamaUrl || this.cfg.ollamaUrl, theme: s.theme ?? 'system', instructions }
  }
  async setModel(name: string) {
    this.record('SetModel', name)
    this.cfg = { ...this.cfg, model: name }
  }
  async setSidebar(choice: SidebarChoice) {
    this.record('SetSidebar', choice)
    this.cfg = { ...this.cfg, sidebar: choice, saved: { ...this.cfg.saved, sidebar: choice } }
  }
  async pickWorkspace() {
    this.record('PickWorkspace')
    return this.cfg.workspace
  }
  async listChats() {
    this.record('ListChats')
    return [...this.chats]
  }
  async newChat() {
    this.record('NewChat')
    const c = this.summary(`chat-${++this.chatCount}`)
    this.chats.push(c)
    return c
  }
  async renameChat(id: string, title: string) {
    this.record('RenameChat', id, title)
    this.chats = this.chats.map((c) => (c.id === id ? { ...c, title } : c))
  }
  /** The unsent text kept by chat id. */
  savedDrafts: Record<string, string> = {}
  async saveDraft(chatId: string, text: string) {
    this.record('SaveDraft', chatId, text)
    if (text) this.savedDrafts[chatId] = text
    else delete this.savedDrafts[chatId]
  }
  async drafts() {
    return { ...this.savedDrafts }
  }
  /** The images of the unsent text kept by chat id. */
  savedDraftImages: Record<string, string[]> = {}
  async saveDraftImages(chatId: string, images: string[]) {
    this.record('SaveDraftImages', chatId, images)
    if (images.length) this.savedDraftImages[chatId] = images
    else delete this.savedDraftImages[chatId]
  }
  async draftImages() {
    return { ...this.savedDraftImages }
  }
  /** The chat the window showed last. */
  lastOpen = ''
  async setOpenChat(chatId: string) {
    this.lastOpen = chatId
  }
  async lastOpenChat() {
    return this.chats.some((c) => c.id === this.lastOpen) ? this.lastOpen : ''
  }
  async deleteChat(id: string) {
    this.record('DeleteChat', id)
    this.chats = this.chats.filter((c) => c.id !== id)
  }
  async openChat(id: string): Promise<OpenedChat> {
    this.record('OpenChat', id)
    const o = this.opened[id]
    if (o) return o
    const chat = this.chats.find((c) => c.id === id) ?? this.summary(id)
    return { chat, messages: [], toolCalls: [], phase: 'idle', liveRunId: '' }
  }
  async send(chatId: string, prompt: string) {
    this.record('Send', chatId, prompt)
    const id = chatId || this.nextChatId || `chat-${++this.chatCount}`
    if (!this.chats.some((c) => c.id === id)) this.chats.push({ ...this.summary(id), title: prompt.slice(0, 40) })
    if (this.onSend) {
      const hook = this.onSend
      setTimeout(() => hook(id, prompt), 0)
    }
    return { chatId: id }
  }
  files: string[] = ['README.md', 'src/app.ts']
  picked: string[] = []
  async pickImages() {
    this.record('PickImages')
    return this.picked
  }
  async workspaceFiles(query: string) {
    this.record('WorkspaceFiles', query)
    return this.files.filter((f) => f.toLowerCase().includes(query.toLowerCase()))
  }
  async sendImages(chatId: string, prompt: string, images: string[]) {
    this.record('SendImages', chatId, prompt, images)
    return this.send(chatId, prompt)
  }
  async promptBudget(chatId: string, model: string) {
    this.record('PromptBudget', chatId, model)
    return { ...this.budget, model: model || this.budget.model }
  }
  async stop(chatId: string) {
    this.record('Stop', chatId)
  }
  async decide(toolCallId: string, decision: Decision, reason: string) {
    this.record('Decide', toolCallId, decision, reason)
  }
  /** What Undo and Redo answer; set undoError to make them fail with it. */
  undoResult: UndoResult = { changeId: 'change-1', reverts: [], paths: [] }
  undoError = ''
  /** What ChatChanges answers. */
  review: FileChange[] = []
  async allowAlways(toolCallId: string) {
    this.record('AllowAlways', toolCallId)
  }
  async allowCommand(toolCallId: string, network: boolean, pattern: string) {
    this.record('AllowCommand', toolCallId, network, pattern)
  }
  async answerSummaryOffer(chatId: string, choice: 'summarize' | 'leave_out') {
    this.record('AnswerSummaryOffer', chatId, choice)
  }
  async undo(chatId: string, opts: UndoOptions) {
    this.record('Undo', chatId, opts)
    if (this.undoError) throw this.undoError
    return { ...this.undoResult }
  }
  async redo(chatId: string, opts: UndoOptions) {
    this.record('Redo', chatId, opts)
    if (this.undoError) throw this.undoError
    return { ...this.undoResult }
  }
  async chatChanges(chatId: string) {
    this.record('ChatChanges', chatId)
    return [...this.review]
  }
  async openPath(chatId: string, path: string, inFolder: boolean) {
    this.record('OpenPath', chatId, path, inFolder)
  }
  async openCallPath(chatId: string, toolCallId: string, path: string, inFolder: boolean) {
    this.record('OpenCallPath', chatId, toolCallId, path, inFolder)
  }
  async openChangedPath(chatId: string, workspace: string, path: string, inFolder: boolean) {
    this.record('OpenChangedPath', chatId, workspace, path, inFolder)
  }
  quit() {
    this.record('Quit')
  }
  async ollamaStatus() {
    this.record('OllamaStatus')
    return { ...this.status }
  }
  async models() {
    this.record('Models')
    return [...this.modelList]
  }
  async starterModels() {
    this.record('StarterModels')
    return [...this.starters]
  }
  pullModel(name: string) {
    this.record('PullModel', name)
    return new Promise<void>((resolve) => {
      this.finishPull = resolve
    })
  }
  /** What ModelChecks answers. */
  checks: ModelCheck[] = []
  /** Ends the current CheckModel call: with a result, or failing with an error. */
  finishCheck: ((result: ModelCheck | Error) => void) | null = null
  checkModel(name: string) {
    this.record('CheckModel', name)
    return new Promise<ModelCheck>((resolve, reject) => {
      this.finishCheck = (result) => (result instanceof Error ? reject(result) : resolve(result))
    })
  }
  async stopModelCheck(name: string) {
    this.record('StopModelCheck', name)
    this.finishCheck?.(new Error('context canceled'))
  }
  async modelChecks() {
    this.record('ModelChecks')
    return [...this.checks]
  }
  async painted(seq: number, running: string[]) {
    this.record('Painted', seq, running)
  }
  async keyReceived(key: string, at: number) {
    this.record('KeyReceived', key, at)
  }
  async setVisible(visible: boolean) {
    this.record('SetVisible', visible)
  }
  /** What the folder dialog answers ('' as if cancelled). */
  folderChoice = ''
  /** What SearchChats answers; by default the chats whose title holds the query. */
  hits: ChatHit[] | null = null
  title = ''
  async chooseFolder(from: string) {
    this.record('ChooseFolder', from)
    return this.folderChoice
  }
  async useFolder(dir: string) {
    this.record('UseFolder', dir)
    this.cfg = { ...this.cfg, workspace: dir }
    return dir
  }
  /** The paths that are not folders that exist: what CheckFolder says of them (every other path is a folder). */
  missingFolders: Record<string, Omit<FolderCheck, 'path' | 'exists'>> = {}
  async checkFolder(dir: string) {
    this.record('CheckFolder', dir)
    const missing = this.missingFolders[dir]
    return { path: dir, exists: !missing, canCreate: missing?.canCreate ?? false }
  }
  async createFolder(dir: string) {
    this.record('CreateFolder', dir)
    delete this.missingFolders[dir]
    return dir
  }
  async setChatWorkspace(chatId: string, dir: string) {
    this.record('SetChatWorkspace', chatId, dir)
    return this.changeChat(chatId, { workspace: dir })
  }
  async setChatModel(chatId: string, name: string) {
    this.record('SetChatModel', chatId, name)
    return this.changeChat(chatId, { model: name })
  }
  async editAndResend(chatId: string, messageId: string, text: string) {
    this.record('EditAndResend', chatId, messageId, text)
    return { chatId }
  }
  async showVersion(chatId: string, shownId: string, index: number) {
    this.record('ShowVersion', chatId, shownId, index)
    return this.openChat(chatId)
  }
  /** What WorkspaceServersToAsk answers, by folder ('' for the folder of new chats). */
  serversToAsk: Record<string, WorkspaceServers> = {}
  async workspaceServersToAsk(dir: string, again: boolean) {
    this.record('WorkspaceServersToAsk', dir, again)
    return this.serversToAsk[dir] ?? null
  }
  async allowWorkspaceServers(dir: string, hash: string) {
    this.record('AllowWorkspaceServers', dir, hash)
    delete this.serversToAsk[dir]
  }
  async refuseWorkspaceServers(dir: string, hash: string) {
    this.record('RefuseWorkspaceServers', dir, hash)
    delete this.serversToAsk[dir]
  }
  async searchChats(query: string): Promise<ChatHit[]> {
    this.record('SearchChats', query)
    if (this.hits) return this.hits
    const q = query.toLowerCase()
    return this.chats.filter((c) => c.title.toLowerCase().includes(q)).map((c) => ({ chat: c }))
  }
  async editQueued(chatId: string, index: number, text: string) {
    this.record('EditQueued', chatId, index, text)
  }
  /** The page previewOpen answers with (a test sets it); without one the pane says there is nothing to show. */
  previewPage: PreviewPage | null = null
  async previewOpen(chatId: string, page: string): Promise<PreviewPage> {
    this.record('PreviewOpen', chatId, page)
    if (!this.previewPage) throw new Error('There is no folder to preview yet: open a folder first (Ctrl+O).')
    return this.previewPage
  }
  /** The development servers devServers answers with (a test sets them). */
  servers: DevServer[] = []
  async devServers(): Promise<DevServer[]> {
    this.record('DevServers')
    return this.servers
  }
  async devServerURL(id: string): Promise<string> {
    this.record('DevServerURL', id)
    const s = this.servers.find((x) => x.id === id)
    if (!s) throw new Error(`server "${id}": no such server runs`)
    return `http://127.0.0.1:${40000 + s.port}/`
  }
  async stopDevServer(id: string) {
    this.record('StopDevServer', id)
    this.servers = this.servers.filter((x) => x.id !== id)
    this.emit([{ type: 'server.ended', chatId: '', toolCallId: id, message: 'The server was stopped.' }])
  }
  /** The PNG (base64) previewScreenshot answers with (a test sets it). */
  previewShot = ''
  async previewScreenshot(x: number, y: number, width: number, height: number, viewWidth: number): Promise<string> {
    this.record('PreviewScreenshot', x, y, width, height, viewWidth)
    if (!this.previewShot) throw new Error('The preview could not be captured: try again once the page is shown.')
    return this.previewShot
  }
  setTitle(title: string) {
    this.title = title
  }
  private changeChat(chatId: string, patch: Partial<ChatSummary>): ChatSummary {
    const c = { ...(this.chats.find((x) => x.id === chatId) ?? this.summary(chatId)), ...patch }
    this.chats = this.chats.map((x) => (x.id === chatId ? c : x))
    if (patch.workspace) this.cfg = { ...this.cfg, workspace: patch.workspace }
    if (patch.model) this.cfg = { ...this.cfg, model: patch.model }
    return c
  }

  onBatch(handler: (events: AgentEvent[]) => void) {
    this.batchHandlers.add(handler)
    return () => {
      this.batchHandlers.delete(handler)
    }
  }

  private summary(id: string): ChatSummary {
    const now = new Date().toISOString()
    return { id, title: 'New chat', model: this.cfg.model, workspace: this.cfg.workspace, createdAt: now, updatedAt: now, messageCount: 0, phase: 'idle' }
  }
}

/** An animation-frame clock driven by hand: `tick()` runs the callbacks queued so far. */
export class FakeFrames {
  private queue: Array<() => void> = []
  frames = 0
  /** Called at the start of every tick, before the callbacks: "the previous frame was painted". */
  onPaint: (() => void) | null = null

  request = (cb: () => void): void => {
    this.queue.push(cb)
  }

  tick(): void {
    this.frames++
    this.onPaint?.()
    const run = this.queue
    this.queue = []
    for (const cb of run) cb()
  }

  /** Ticks until nothing is queued (at most `max` frames). */
  drain(max = 20): void {
    for (let i = 0; i < max && this.queue.length > 0; i++) this.tick()
  }

  get pending(): number {
    return this.queue.length
  }
}
