// Watching the model server: whether Ollama answers, its models, and asking again by itself
// while it is away. While Ollama does not answer, the window asks again, waiting longer each
// time (ollamaPollFirstMs doubling up to ollamaPollMaxMs); once it answers, the not-running
// panel goes, and the errors it caused in the chats become notices of the messages left
// unanswered.

import type { AgentEvent, ModelInfo } from '../backend'
import { errorText } from '../backend'
import type { StateCell } from './appState'
import { serverBack } from './chatReducer'
import { serverGoneCodes } from './errorSentences'
import { pullsAfterModels } from './pulls'

/** The first wait before asking again whether Ollama answers, and the longest one. */
export const ollamaPollFirstMs = 1000
export const ollamaPollMaxMs = 15000

export class ServerWatch {
  private poll: ReturnType<typeof setTimeout> | null = null
  private pollMs = 0
  /** The address of the server whose models the window lists. */
  private listedFrom = ''

  /** modelsChanged is called once the models of a server that answers are listed. */
  constructor(
    private readonly cell: StateCell,
    private readonly modelsChanged: () => void,
  ) {}

  /**
   * Asks whether Ollama answers; when it does, lists its models. Quiet, the window does not
   * say it is checking (the polling while Ollama is away, the model menu opening).
   */
  async refreshOllama(quiet = false): Promise<void> {
    if (!quiet) this.cell.set({ checkingOllama: true })
    try {
      const status = await this.cell.backend.ollamaStatus()
      this.cell.set({ ollama: status })
      // The models listed are another server's (the settings changed it): they describe none
      // of this one's, which is not there to say what it serves.
      if (!status.running && status.url !== this.listedFrom && this.cell.get().models.length > 0) {
        this.cell.set({ models: [] })
      }
      this.watch(status.running)
      if (status.running) {
        this.setModels(await this.cell.backend.models())
        this.listedFrom = status.url
        this.modelsChanged()
      }
    } catch (err) {
      this.cell.set({ ollama: { running: false, url: this.cell.get().config?.ollamaUrl ?? '', version: '', error: errorText(err) } })
      this.watch(false)
    } finally {
      if (!quiet) this.cell.set({ checkingOllama: false })
    }
  }

  private setModels(models: ModelInfo[]): void {
    const s = this.cell.get()
    this.cell.set({ models, pulls: pullsAfterModels(s.pulls, s.models, models) })
  }

  /**
   * Lists the server's models again, quietly (no "Checking…"): the first-model offer asks
   * while it is shown, so that a model pulled elsewhere (`prototyper pull`) appears.
   */
  async refreshModels(): Promise<void> {
    if (!this.cell.get().ollama?.running) return
    try {
      const models = await this.cell.backend.models()
      if (models.length !== this.cell.get().models.length) this.setModels(models)
    } catch {
      // The next check of Ollama says what is wrong.
    }
  }

  /** Loads the models the window offers when the server has none. */
  async loadStarters(): Promise<void> {
    try {
      this.cell.set({ starters: await this.cell.backend.starterModels() })
    } catch {
      // Without the list the offer still has the model menu's pull field.
    }
  }

  /** A run failed because Ollama is away: the window says so at once, and watches for it. */
  notice(ev: AgentEvent): void {
    if (ev.type !== 'error' || !ev.code || !serverGoneCodes.has(ev.code)) return
    const s = this.cell.get()
    if (s.ollama && !s.ollama.running) return
    const url = s.ollama?.url || s.config?.ollamaUrl || ''
    this.cell.set({ ollama: { running: false, url, version: '', error: ev.message ?? '' } })
    this.watch(false)
  }

  /** Stops asking. */
  stop(): void {
    if (this.poll) clearTimeout(this.poll)
    this.poll = null
  }

  private watch(running: boolean): void {
    if (running) {
      this.pollMs = 0
      this.stop()
      this.serverIsBack()
      return
    }
    if (this.poll) return
    this.pollMs = Math.min(ollamaPollMaxMs, this.pollMs ? this.pollMs * 2 : ollamaPollFirstMs)
    this.poll = setTimeout(() => {
      this.poll = null
      void this.refreshOllama(true)
    }, this.pollMs)
  }

  private serverIsBack(): void {
    const chats = { ...this.cell.get().chats }
    let changed = false
    for (const [id, c] of Object.entries(chats)) {
      const after = serverBack(c)
      if (after !== c) {
        chats[id] = after
        changed = true
      }
    }
    if (changed) this.cell.set({ chats })
  }
}
