import { useEffect, useLayoutEffect, useRef, useState, type KeyboardEvent, type RefObject } from 'react'
import type { TimelineEntry } from '../state/chatReducer'
import { answerReveals } from './transcriptReveal'
import { entriesInBand, entryTop, noEntries, sameRange, type EntryRange } from './transcriptWindow'

/** Where the view was: an entry in view and how far below the top of the view its top was. */
interface Anchor {
  id: string
  offset: number
  scrollTop: number
}

export interface TranscriptWindow {
  /** The heights of the entries before the tail, measured or estimated. */
  heights: number[]
  /** Which of them are rendered. */
  range: EntryRange
  onScroll: () => void
  onKeyDown: (e: KeyboardEvent<HTMLElement>) => void
}

function entryElements(el: HTMLElement): HTMLElement[] {
  return Array.from(el.querySelectorAll<HTMLElement>('[data-entry]'))
}

/** The first entry whose bottom is in view, and where its top is: what stays put across a render. */
function anchorOf(el: HTMLElement): Anchor | null {
  const view = el.getBoundingClientRect()
  for (const n of entryElements(el)) {
    const r = n.getBoundingClientRect()
    if (r.top >= view.bottom) return null // only spacers in view
    if (r.bottom > view.top) return { id: n.dataset.entry ?? '', offset: r.top - view.top, scrollTop: el.scrollTop }
  }
  return null
}

/** The top of the timeline, in pixels from the top of the scrolled content. */
function timelineTop(el: HTMLElement): number {
  const tl = el.querySelector('.timeline')
  return tl ? tl.getBoundingClientRect().top - el.getBoundingClientRect().top + el.scrollTop : 0
}

/**
 * The heights of the entries before the tail: measured, or estimated and scaled by how the
 * measured ones compare with their estimates, so that the spacers are near what they stand for.
 */
function heightsOf(
  timeline: readonly TimelineEntry[],
  tail: number,
  measured: ReadonlyMap<string, number>,
  estimate: (e: TimelineEntry) => number,
): number[] {
  let real = 0
  let guessed = 0
  for (const e of timeline) {
    const h = measured.get(e.id)
    if (h !== undefined) [real, guessed] = [real + h, guessed + estimate(e)]
  }
  const scale = real > 0 && guessed > 0 ? real / guessed : 1
  return timeline.slice(0, tail).map((e) => measured.get(e.id) ?? Math.round(estimate(e) * scale))
}

// The margin rendered above and below the view, in screens: what Page Up or a short scroll
// brings in is already laid out.
const margin = 1

/**
 * The window of a long transcript (see transcriptWindow.ts): which entries before the tail
 * (`tail`, the index of its first entry) are rendered, from the scroll position of `scroller`;
 * each rendered entry measured, so that its height is kept once it scrolls out; the entry in view
 * kept in place when what is above it changes (an estimate replaced by a measure, an answer cut
 * then shown whole); Home, End, Page Up and Page Down in the transcript; and revealMessage.
 * `follow` is whether the view follows the end; `pin` stops it following; `cut` names the
 * entry shown only in part, if any.
 */
export function useTranscriptWindow(
  scroller: RefObject<HTMLElement | null>,
  timeline: readonly TimelineEntry[],
  tail: number,
  follow: boolean,
  pin: () => void,
  estimate: (e: TimelineEntry) => number,
  cut: string,
): TranscriptWindow {
  const measured = useRef(new Map<string, number>())
  const [range, setRange] = useState<EntryRange>(noEntries)
  const anchor = useRef<Anchor | null>(null)
  const revealing = useRef('')
  const heights = heightsOf(timeline, tail, measured.current, estimate)
  const latest = useRef({ heights, timeline, tail, pin })
  latest.current = { heights, timeline, tail, pin }

  const bandAt = (el: HTMLElement, h: readonly number[], top: number): EntryRange => {
    const view = el.clientHeight
    return entriesInBand(h, top - margin * view, top + (1 + margin) * view)
  }
  const update = (next: EntryRange) => setRange((was) => (sameRange(was, next) ? was : next))

  useLayoutEffect(() => {
    const el = scroller.current
    if (!el) return
    const entries = entryElements(el)
    entries.forEach((n, i) => {
      const id = n.dataset.entry ?? ''
      // An answer shown in part is not as high as the whole of it. While the view follows the
      // end, only the newest entries change: the others are measured once, so that a frame of
      // a streamed answer lays out no more than it did.
      if (id !== cut && (!follow || i >= entries.length - 2 || !measured.current.has(id))) measured.current.set(id, n.offsetHeight)
    })
    if (follow) el.scrollTop = el.scrollHeight
    else {
      const a = anchor.current
      const n = a && Math.abs(el.scrollTop - a.scrollTop) < 1 ? entryElements(el).find((x) => x.dataset.entry === a.id) : undefined
      if (a && n && el.scrollTop > 0) {
        const moved = n.getBoundingClientRect().top - el.getBoundingClientRect().top - a.offset
        if (Math.abs(moved) >= 1) el.scrollTop += moved
      }
    }
    if (revealing.current) {
      const n = entryElements(el).find((x) => x.dataset.entry === revealing.current)
      if (n) {
        revealing.current = ''
        const message = n.querySelector('[data-message-id]')
        ;(message ?? n).scrollIntoView?.({ block: 'center' })
        message?.classList.add('found')
      }
    }
    anchor.current = follow ? null : anchorOf(el)
    if (tail === 0) return
    const h = heightsOf(timeline, tail, measured.current, estimate)
    update(bandAt(el, h, el.scrollTop - timelineTop(el)))
  })

  // The transcript's own height changes without a render of it (the message box beside it grows
  // with an image or shrinks once sent, the window is resized): one that followed its end keeps
  // following it, rather than letting the box cover its last lines.
  const following = useRef(follow)
  following.current = follow
  useEffect(() => {
    const el = scroller.current
    if (!el || typeof ResizeObserver === 'undefined') return
    const observer = new ResizeObserver(() => {
      if (following.current) el.scrollTop = el.scrollHeight
    })
    observer.observe(el)
    return () => observer.disconnect()
  }, [scroller])

  useEffect(
    () =>
      answerReveals((messageId) => {
        const el = scroller.current
        const { heights: h, timeline: t, tail: tailAt, pin: stopFollowing } = latest.current
        const at = t.findIndex((e) => e.id === messageId)
        if (!el || at < 0) return false
        stopFollowing()
        revealing.current = messageId
        if (at < tailAt) update(bandAt(el, h, entryTop(h, at)))
        else setRange((r) => ({ ...r })) // a render, to reveal it
        return true
      }),
    [scroller],
  )

  function onScroll() {
    const el = scroller.current
    if (!el) return
    anchor.current = anchorOf(el)
    update(bandAt(el, latest.current.heights, el.scrollTop - timelineTop(el)))
  }

  return {
    heights,
    range,
    onScroll,
    onKeyDown: (e) => {
      const el = scroller.current
      const t = e.target as HTMLElement
      if (!el || e.altKey || e.ctrlKey || e.metaKey || e.shiftKey) return
      if (t.isContentEditable || ['INPUT', 'TEXTAREA', 'SELECT'].includes(t.tagName)) return
      const page = el.clientHeight * 0.9
      const to = { Home: 0, End: el.scrollHeight, PageUp: el.scrollTop - page, PageDown: el.scrollTop + page }[e.key]
      if (to === undefined) return
      e.preventDefault()
      if (e.key !== 'End' && e.key !== 'PageDown') pin()
      el.scrollTop = to
      // at once, not on the scroll event: the keys repeat faster than it comes
      onScroll()
    },
  }
}
