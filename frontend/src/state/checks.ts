// The model check run from the window: the latest result of every model checked on this
// machine, and a check under way, whose progress arrives as "check.progress" events of no chat
// in the batch stream.

import type { AgentEvent, ModelCheck } from '../backend'
import { errorText } from '../backend'
import { sameModel, type StateCell } from './appState'
import { tokenRate } from '../tokenCount'

/** A model's check as the model menu shows it. */
export interface CheckState {
  /** The latest result kept for the model; null before its first check ends. */
  result: ModelCheck | null
  /** A check is under way. */
  running: boolean
  /** The cases ended so far, and how many there are. */
  ended: number
  total: number
  /** The case under way. */
  current: string
  /** Why the last check did not end ('' when it did, or runs); stopped is the user's stop. */
  error: string
  stopped: boolean
}

const idle: CheckState = { result: null, running: false, ended: 0, total: 0, current: '', error: '', stopped: false }

/** A model fails most of the check's cases: it is marked so before the user starts a chat. */
export function failsMost(c: ModelCheck): boolean {
  return c.total > 0 && c.passed * 2 < c.total
}

/** A check's result in a few words: "5/6 on this machine, 14 tok/s". */
export function checkBadge(c: ModelCheck): string {
  return `${c.passed}/${c.total} on this machine, ${tokenRate(c.answerTokensPerSec)}`
}

export class ModelChecks {
  constructor(private readonly cell: StateCell) {}

  /** Reads the kept results (the menu asks again each time it opens). */
  async load(): Promise<void> {
    try {
      const results = await this.cell.backend.modelChecks()
      const checks = { ...this.cell.get().checks }
      for (const r of results) checks[r.model] = { ...(checks[r.model] ?? idle), result: r }
      this.cell.set({ checks })
    } catch {
      // the menu shows the models without their results; the next opening asks again
    }
  }

  /** Checks a model; progress arrives as "check.progress" events in the batch stream. */
  async check(name: string): Promise<void> {
    const model = name.trim()
    if (!model || this.of(model).running) return
    this.put(model, { ...this.of(model), running: true, ended: 0, total: 0, current: '', error: '', stopped: false })
    try {
      const result = await this.cell.backend.checkModel(model)
      this.put(model, { ...this.of(model), running: false, result })
    } catch (err) {
      const prev = this.of(model)
      this.put(model, { ...prev, running: false, error: prev.stopped ? '' : errorText(err) })
    }
  }

  /** Stops a model's check; it keeps nothing, and the earlier result stays. */
  async stop(name: string): Promise<void> {
    if (!this.of(name).running) return
    this.put(name, { ...this.of(name), stopped: true })
    try {
      await this.cell.backend.stopModelCheck(name)
    } catch (err) {
      this.cell.fail(errorText(err))
    }
  }

  /** Applies a check's progress; false for any other event. */
  takeEvent(ev: AgentEvent): boolean {
    if (ev.type !== 'check.progress' || !ev.model) return false
    const prev = this.of(ev.model)
    if (prev.running)
      this.put(ev.model, { ...prev, ended: ev.completed ?? 0, total: ev.total ?? prev.total, current: ev.status === 'running' ? (ev.name ?? '') : prev.current })
    return true
  }

  private of(name: string): CheckState {
    return this.cell.get().checks[name] ?? idle
  }

  private put(name: string, c: CheckState): void {
    this.cell.set({ checks: { ...this.cell.get().checks, [name]: c } })
  }
}

/** The check of a model by any of its names ("m" and "m:latest" are one model). */
export function checkOf(checks: Record<string, CheckState>, name: string): CheckState | undefined {
  if (checks[name]) return checks[name]
  return Object.entries(checks).find(([n]) => sameModel(n, name))?.[1]
}
