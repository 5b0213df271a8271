// A cell holds one immutable state outside React, read with useSyncExternalStore: each change
// replaces the state and notifies every listener once. The app's store and the panes' stores
// keep their state in one.

export class Cell<S> {
  protected state: S
  private listeners = new Set<() => void>()

  constructor(initial: S) {
    this.state = initial
  }

  get = (): S => this.state

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Replaces the state with patch applied and notifies; the cell's owner decides who may. */
  protected set(patch: Partial<S>): void {
    this.state = { ...this.state, ...patch }
    for (const l of this.listeners) l()
  }
}
