// The settings and what the header picks: the loaded config, the folder and the model (of the
// open chat, or of the next new chat), the settings dialog, the folder's own MCP servers, and
// the budget of a message for the open chat and model.
//
// The header shows the open chat's folder and model. Picking another one while a chat is open
// asks (pendingChange) whether it is for this chat, from its next message on, or for a new
// chat; with no chat open it is what the next new chat takes.

import type { FolderCheck, Settings, SidebarChoice, WorkspaceServers } from '../backend'
import { errorText } from '../backend'
import { activeSummary, budgetKey, headerModel, headerWorkspace, sameModel, type StateCell } from './appState'

export class SettingsAndPicks {
  /** openNewChat shows an empty new chat; refreshOllama asks the server again. */
  constructor(
    private readonly cell: StateCell,
    private readonly hooks: { openNewChat(): void; refreshOllama(): Promise<void> },
  ) {}

  async loadConfig(): Promise<void> {
    try {
      this.cell.set({ config: await this.cell.backend.config(), configError: '' })
    } catch (err) {
      this.cell.set({ configError: errorText(err) })
    }
  }

  /**
   * Asks how long a message to the open chat with the current model may be (once per chat and
   * model). Without an answer (no model yet, Ollama away) the composer simply does not warn.
   */
  async loadBudget(): Promise<void> {
    const s = this.cell.get()
    const model = headerModel(s)
    const key = budgetKey(s)
    if (!model || s.budgets[key] || (s.ollama && !s.ollama.running)) return
    try {
      const budget = await this.cell.backend.promptBudget(s.activeChatId ?? '', model)
      this.cell.set({ budgets: { ...this.cell.get().budgets, [key]: budget } })
    } catch {
      // The Go side checks again when the message is sent, and says why it cannot be.
    }
  }

  async pickWorkspace(): Promise<void> {
    try {
      const dir = await this.cell.backend.pickWorkspace()
      if (!dir) return
      this.cell.folderPicked()
      await this.loadConfig()
    } catch (err) {
      this.cell.fail(err, 'folder')
    }
  }

  async setModel(name: string): Promise<void> {
    try {
      await this.cell.backend.setModel(name)
      const config = this.cell.get().config
      if (config) this.cell.set({ config: { ...config, model: name } })
      else await this.loadConfig()
      void this.loadBudget()
    } catch (err) {
      this.cell.fail(err)
    }
  }

  /** Shows or hides the list of chats at once, and saves the choice for the next start. */
  async setSidebar(choice: SidebarChoice): Promise<void> {
    const config = this.cell.get().config
    if (config) this.cell.set({ config: { ...config, sidebar: choice } })
    try {
      await this.cell.backend.setSidebar(choice)
    } catch (err) {
      this.cell.fail(err)
    }
  }

  async saveSettings(settings: Settings): Promise<void> {
    await this.cell.backend.saveSettings(settings)
    // The context cap may have changed: every budget is asked again.
    this.cell.set({ budgets: {} })
    await this.loadConfig()
    await this.hooks.refreshOllama()
    void this.loadBudget()
  }

  /** Asks for a folder with the native dialog, then as requestFolder. */
  async chooseFolder(): Promise<void> {
    try {
      const dir = await this.cell.backend.chooseFolder(headerWorkspace(this.cell.get()))
      if (dir) await this.requestFolder(dir)
    } catch (err) {
      this.cell.fail(err, 'folder')
    }
  }

  /** The user picked a folder in the header. */
  async requestFolder(dir: string): Promise<void> {
    const open = activeSummary(this.cell.get())
    if (open) {
      if (open.workspace !== dir) this.cell.set({ pendingChange: { kind: 'workspace', value: dir, chatId: open.id } })
      return
    }
    try {
      await this.cell.backend.useFolder(dir)
      this.cell.folderPicked()
      await this.loadConfig()
      void this.loadBudget()
    } catch (err) {
      this.cell.fail(err, 'folder')
    }
  }

  /** Whether a path typed in the folder picker is a folder, or one that can be created. */
  checkFolder(dir: string): Promise<FolderCheck> {
    return this.cell.backend.checkFolder(dir)
  }

  /** The user asked to create a folder inside one that exists and to work in it. */
  async createFolder(dir: string): Promise<void> {
    try {
      const made = await this.cell.backend.createFolder(dir)
      // a sentence saying that this folder does not exist (a send refused) is wrong from now on
      if (this.cell.get().error.includes(made)) this.cell.dismissError()
      await this.requestFolder(made)
    } catch (err) {
      this.cell.fail(err, 'folder')
    }
  }

  /** The user picked a model in the header. */
  async requestModel(name: string): Promise<void> {
    const open = activeSummary(this.cell.get())
    if (!open) return this.setModel(name)
    if (!sameModel(open.model ?? '', name)) this.cell.set({ pendingChange: { kind: 'model', value: name, chatId: open.id } })
  }

  /** Applies the pending change to its chat, or starts a new chat with it. */
  async applyChange(to: 'chat' | 'new'): Promise<void> {
    const change = this.cell.get().pendingChange
    if (!change) return
    this.cell.set({ pendingChange: null })
    const backend = this.cell.backend
    try {
      if (to === 'new') {
        // The new chat takes what was just picked, and the rest as the header showed it (the
        // open chat's), not what the app used last elsewhere.
        const shown = this.cell.get().chatList.find((c) => c.id === change.chatId)
        const config = this.cell.get().config
        if (change.kind === 'workspace') {
          await backend.useFolder(change.value)
          if (shown?.model && !sameModel(shown.model, config?.model ?? '')) await backend.setModel(shown.model)
        } else {
          if (shown?.workspace && shown.workspace !== config?.workspace) await backend.useFolder(shown.workspace)
          await backend.setModel(change.value)
        }
        this.hooks.openNewChat()
      } else {
        const c =
          change.kind === 'workspace'
            ? await backend.setChatWorkspace(change.chatId, change.value)
            : await backend.setChatModel(change.chatId, change.value)
        this.cell.set({ chatList: this.cell.get().chatList.map((x) => (x.id === c.id ? { ...x, workspace: c.workspace, model: c.model } : x)) })
      }
      if (change.kind === 'workspace') this.cell.folderPicked()
      await this.loadConfig()
      void this.loadBudget()
    } catch (err) {
      this.cell.fail(err, change.kind === 'workspace' ? 'folder' : null)
    }
  }

  cancelChange = (): void => this.cell.set({ pendingChange: null })

  /** The MCP servers of a folder's own file the user has not answered about, or (again) refused (null: none, or it could not be asked). */
  async workspaceServersToAsk(dir: string, again = false): Promise<WorkspaceServers | null> {
    try {
      return await this.cell.backend.workspaceServersToAsk(dir, again)
    } catch (err) {
      this.cell.fail(err)
      return null
    }
  }

  /** Answers whether the folder's own MCP servers, as shown (hash), may start. */
  async answerWorkspaceServers(dir: string, hash: string, allow: boolean): Promise<void> {
    try {
      await (allow ? this.cell.backend.allowWorkspaceServers(dir, hash) : this.cell.backend.refuseWorkspaceServers(dir, hash))
    } catch (err) {
      this.cell.fail(err)
    }
  }
}
