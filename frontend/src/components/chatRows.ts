import type { ChatSummary } from '../backend'
import type { ChatGroup } from './ChatList'

/**
 * The chat list's rows, flat: each group's heading (when it has one), then its chats. The list
 * renders only the rows in view (windowing), so that ten thousand chats cost the window what
 * a screenful does; the rows' heights place the rest as empty space that scrolls.
 */
export type ChatRow =
  | { kind: 'head'; group: number }
  | { kind: 'chat'; group: number; chat: ChatSummary; index: number; posInGroup: number }

/** The rows of groups, the chats in the list's order (a chat row's index is its place there), and each chat's row. */
export function chatRows(groups: ChatGroup[]): { rows: ChatRow[]; chats: ChatSummary[]; rowOf: number[] } {
  const rows: ChatRow[] = []
  const chats: ChatSummary[] = []
  const rowOf: number[] = []
  groups.forEach((g, group) => {
    if (g.heading) rows.push({ kind: 'head', group })
    g.chats.forEach((chat, posInGroup) => {
      rowOf.push(rows.length)
      rows.push({ kind: 'chat', group, chat, index: chats.length, posInGroup })
      chats.push(chat)
    })
  })
  return { rows, chats, rowOf }
}

/** The height of each kind of row in pixels, as measured in the window (or guessed before). */
export interface RowHeights {
  head: number
  chat: number
}

/** Where each row begins, from the list's top; one more entry than rows: the total height. */
export function rowOffsets(rows: ChatRow[], h: RowHeights): number[] {
  const out = new Array<number>(rows.length + 1)
  out[0] = 0
  for (let i = 0; i < rows.length; i++) out[i + 1] = out[i] + (rows[i].kind === 'head' ? h.head : h.chat)
  return out
}

/** The row that holds the pixel y (the last row for y past the end). */
function rowAt(offsets: number[], y: number): number {
  let lo = 0
  let hi = offsets.length - 2
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (offsets[mid] <= y) lo = mid
    else hi = mid - 1
  }
  return Math.max(0, lo)
}

/** Rows rendered before the window and after it, so that a short scroll shows rows at once. */
export const overscanRows = 8

/**
 * The rows to render [start, end) for a view scrolled to top and height pixels tall. A view not
 * measured yet (height 0: not laid out) renders the first screenful it may show.
 */
export function visibleRows(offsets: number[], top: number, height: number, overscan = overscanRows): [number, number] {
  const n = offsets.length - 1
  if (n <= 0) return [0, 0]
  if (height <= 0) return [0, Math.min(n, 40 + overscan)]
  const first = rowAt(offsets, Math.max(0, top))
  const last = rowAt(offsets, top + height)
  return [Math.max(0, first - overscan), Math.min(n, last + 1 + overscan)]
}

/** The scroll position that shows row i whole in a view at top, height pixels tall (top when it is). */
export function scrollToShow(offsets: number[], i: number, top: number, height: number): number {
  const begin = offsets[i]
  const end = offsets[i + 1]
  if (begin < top) return begin
  if (end > top + height) return end - height
  return top
}

/** The chat the keys move to from chat i of n: one up or down, a page of rows, the first or last. */
export function chatAfterKey(key: string, i: number, n: number, page: number): number | null {
  switch (key) {
    case 'ArrowDown':
      return Math.min(n - 1, i + 1)
    case 'ArrowUp':
      return Math.max(0, i - 1)
    case 'PageDown':
      return Math.min(n - 1, i + page)
    case 'PageUp':
      return Math.max(0, i - page)
    case 'Home':
      return 0
    case 'End':
      return n - 1
  }
  return null
}
