import { Component, type ErrorInfo, type ReactNode } from 'react'

export interface ItemBoundaryProps {
  /** What the user would call the item: "message", "tool call", "chat". */
  what: string
  /** A new value (the item's next state) tries to render the item again. */
  resetKey?: unknown
  /** Attributes the placeholder keeps from the item (its id, its state), for acks and tests. */
  attributes?: Record<string, string>
  children: ReactNode
}

interface ItemBoundaryState {
  error: unknown
  failed: boolean
}

/**
 * Keeps a rendering error inside one item of the window: the item is replaced by one sentence
 * saying it could not be shown and why, and everything around it stays readable. When the item
 * changes (`resetKey`) it is tried again, so a streaming message recovers once its text does.
 */
export class ItemBoundary extends Component<ItemBoundaryProps, ItemBoundaryState> {
  state: ItemBoundaryState = { error: null, failed: false }

  static getDerivedStateFromError(error: unknown): ItemBoundaryState {
    return { error, failed: true }
  }

  componentDidUpdate(prev: ItemBoundaryProps): void {
    if (this.state.failed && prev.resetKey !== this.props.resetKey) this.setState({ error: null, failed: false })
  }

  componentDidCatch(error: unknown, info: ErrorInfo): void {
    console.error(`Prototyper: a ${this.props.what} could not be shown:`, error, info.componentStack)
  }

  render(): ReactNode {
    if (!this.state.failed) return this.props.children
    return (
      <div className="notice error item-error" data-testid="item-error" {...this.props.attributes}>
        This {this.props.what} could not be shown: {reason(this.state.error)}
      </div>
    )
  }
}

/** What went wrong in rendering, said inside the item's sentence as the error says it. */
function reason(err: unknown): string {
  const said = err instanceof Error ? err.message : String(err ?? '')
  return said || 'unknown error'
}
