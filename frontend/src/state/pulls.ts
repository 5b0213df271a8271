// Downloads of models: a pull's progress arrives as "pull.progress" events of no chat in the
// batch stream; its speed is measured here, smoothed, within one digest.

import type { AgentEvent, ModelInfo, PullProgress } from '../backend'
import { errorText } from '../backend'
import { findModel, type PullState, type StateCell } from './appState'

/** What a pull needs of the rest of the store once its model is there. */
export interface PullHooks {
  /** Asks the server again (its models now include the pulled one). */
  refreshOllama(): Promise<void>
  /** Makes a model the one new chats use. */
  setModel(name: string): Promise<void>
}

export class Pulls {
  private samples = new Map<string, { at: number; completed: number }>()

  constructor(
    private readonly cell: StateCell,
    private readonly hooks: PullHooks,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Pulls a model; progress arrives as "pull.progress" events in the batch stream. */
  async pullModel(name: string): Promise<void> {
    const model = name.trim()
    if (!model) return
    this.setPull(model, { name: model, status: 'starting', total: 0, completed: 0, bytesPerSec: 0, error: '', done: false })
    try {
      await this.cell.backend.pullModel(model)
      this.setPull(model, { ...this.cell.get().pulls[model], status: 'success', done: true })
      await this.hooks.refreshOllama()
      // A first model, or one replacing a model the server does not have, is the one to use.
      const current = this.cell.get().config?.model ?? ''
      if (!current || !findModel(this.cell.get().models, current)) await this.hooks.setModel(model)
    } catch (err) {
      this.setPull(model, { ...this.cell.get().pulls[model], error: errorText(err), done: true })
    }
  }

  dismissPull(name: string): void {
    const pulls = { ...this.cell.get().pulls }
    delete pulls[name]
    this.cell.set({ pulls })
  }

  /** Applies a pull's event (progress, or the error that ends it); false for any other. */
  takeEvent(ev: AgentEvent): boolean {
    if (ev.type === 'pull.progress' && ev.model) {
      this.onProgress({ name: ev.model, status: ev.status ?? '', digest: ev.digest, total: ev.total, completed: ev.completed })
      return true
    }
    if (ev.type === 'error' && !ev.chatId && ev.model) {
      const prev = this.cell.get().pulls[ev.model]
      if (prev) this.setPull(ev.model, { ...prev, error: ev.message || ev.code || 'The download failed.', done: true })
      return true
    }
    return false
  }

  private setPull(name: string, p: PullState): void {
    this.cell.set({ pulls: { ...this.cell.get().pulls, [name]: p } })
  }

  private onProgress(p: PullProgress): void {
    const prev = this.cell.get().pulls[p.name] ?? { name: p.name, status: '', total: 0, completed: 0, bytesPerSec: 0, error: '', done: false }
    const now = this.now()
    const completed = p.completed ?? 0
    let speed = prev.bytesPerSec
    const sample = this.samples.get(p.name)
    // A new digest restarts the byte count; the speed is only measured within one digest.
    if (sample && completed >= sample.completed && now > sample.at) {
      const instant = ((completed - sample.completed) * 1000) / (now - sample.at)
      speed = speed === 0 ? instant : speed * 0.7 + instant * 0.3
    }
    this.samples.set(p.name, { at: now, completed })
    this.setPull(p.name, { ...prev, status: p.status, total: p.total ?? prev.total, completed, bytesPerSec: speed })
  }
}

/**
 * The pulls still worth showing once the server lists models: a failed pull is dropped when the
 * list gained a model it did not have (the server came back, or a model arrived another way),
 * its failure being older than what the menu now shows.
 */
export function pullsAfterModels(pulls: Record<string, PullState>, before: ModelInfo[], after: ModelInfo[]): Record<string, PullState> {
  const had = new Set(before.map((m) => m.name))
  if (!after.some((m) => !had.has(m.name))) return pulls
  const failed = Object.values(pulls).filter((p) => p.done && p.error)
  if (failed.length === 0) return pulls
  const kept = { ...pulls }
  for (const p of failed) delete kept[p.name]
  return kept
}
