// The transcript's window: which entries of a long chat are in the page. The newest ones (the
// tail) always are, as are any still running; of those before it only the ones in view, with a
// margin, are rendered, each of the others standing as its height (measured once rendered,
// estimated until then) in a spacer, so that the page holds what is on screen whatever the
// length of the chat, and an entry scrolled out and back keeps its place.

/** The gap between two entries of the timeline (`.timeline`'s `gap`), in pixels. */
export const entryGap = 10

/** How many of the newest entries are always rendered: a chat up to this long renders whole. */
export const alwaysRendered = 150

/** A first guess of an entry's height, from the length of its text, until it is measured. */
export function estimatedHeight(chars: number): number {
  // about 90 characters a line of 22 px, and the padding and footer of a message
  return 40 + Math.ceil(chars / 90) * 22
}

/** The rendered part of the entries before the tail: [first, last), empty when first === last. */
export interface EntryRange {
  first: number
  last: number
}

export const noEntries: EntryRange = { first: 0, last: 0 }

/**
 * The entries before the tail that meet the band [top, bottom] (pixels from the top of the
 * timeline), given each one's height: the first whose bottom is below top to the last whose top
 * is above bottom.
 */
export function entriesInBand(heights: readonly number[], top: number, bottom: number): EntryRange {
  let y = 0
  let first = -1
  let last = 0
  for (let i = 0; i < heights.length; i++) {
    const end = y + heights[i]
    if (first < 0 && end >= top) first = i
    if (y > bottom) break
    last = i + 1
    y = end + entryGap
  }
  if (first < 0 || first >= last) return noEntries
  return { first, last }
}

/** The height a spacer takes standing for the entries of heights [from, to) in the timeline. */
export function spacerHeight(heights: readonly number[], from: number, to: number): number {
  let h = 0
  for (let i = from; i < to; i++) h += heights[i] + entryGap
  return Math.max(0, h - entryGap)
}

/** The top of entry i, in pixels from the top of the timeline. */
export function entryTop(heights: readonly number[], i: number): number {
  let y = 0
  for (let j = 0; j < i && j < heights.length; j++) y += heights[j] + entryGap
  return y
}

export function sameRange(a: EntryRange, b: EntryRange): boolean {
  return a.first === b.first && a.last === b.last
}
