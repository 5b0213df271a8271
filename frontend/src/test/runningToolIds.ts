import type { StateCell } from '../state/appState'

/**
 * The ids of the tool cards the cell holds as running, in every chat: what a window that shows
 * every card would find running in its document.
 */
export function runningToolIds(cell: StateCell): string[] {
  return Object.values(cell.get().chats)
    .flatMap((c) => Object.values(c.tools))
    .filter((t) => t.state === 'running')
    .map((t) => t.id)
}
