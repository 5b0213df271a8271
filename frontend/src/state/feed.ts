// The feed: every "agent:batch" for every chat, applied with reduceChat, and its paint
// acknowledgement.
//
// The bridge owns order, merging and the paint gate (docs/ARCHITECTURE.md): it sends batches
// in seq order, each event once, merges deltas while a batch waits, and sends a tool's result
// only after an acknowledgement listed its card running. The feed applies batches as they come
// and acknowledges each once the first animation frame after it was applied has been rendered:
// a frame callback posts a message, and a message is a task, run only after that frame's
// layout and paint (the rendering update is one task of the web view's run loop). So the ack
// comes within one frame, not after a second frame callback 16 ms later: Painted(highest seq
// of the batch, ids of the tool cards in the DOM as running, and the page's times of the batch,
// received and painted, for the bridge log).
//
// Its own guards all have one reason: a window slower than the bridge's ack fallback (a busy
// page, a loaded machine; a shared 2-core test machine saw 270 ms) gets batches without having
// acknowledged the last, because a hung window must never stall a run; so batches overtake the
// paint. Then
//   - a result for a card whose running state was not painted yet first shows the card running,
//     and that chat's events from the result on are held until that frame was rendered;
//   - text, thinking and output deltas are applied once per animation frame, those of one
//     message (or one command's stream) merged, since several batches may land in one frame
//     (ack-paced, a batch's deltas are already merged by the bridge); before a lifecycle event
//     of the same chat they are flushed, so the order of the seq stream is kept. Lifecycle
//     events apply at once, one notification per batch.
// And the reducer's dedupe by seq (isDuplicate) matters only where a chat reopened from the
// store (versions.ts keeps the seqs its live state applied) overlaps the live batches.

import type { AgentEvent, Backend } from '../backend'
import type { StateCell } from './appState'
import { emptyChat, isDuplicate, markRunning, reduceChat, type ChatState } from './chatReducer'

/** What the feed hands to the other concerns of the store while it applies a batch. */
export interface FeedHooks {
  /** Takes an event of no chat (a model's download); true when it was taken. */
  takeOther(ev: AgentEvent): boolean
  /** Sees every event of a chat before it is applied (a server gone is noticed at once). */
  notice(ev: AgentEvent): void
  /** Given a chat's events and its state after them, returns the state the chat keeps. */
  afterEvents(chatId: string, events: AgentEvent[], chat: ChatState): ChatState
  /** Called once a batch is applied, with the ids of the chats it changed and their events. */
  applied(byChat: Map<string, AgentEvent[]>): void
}

export interface FeedOptions {
  /** requestAnimationFrame, injectable so tests drive frames by hand. */
  requestFrame?: (cb: () => void) => void
  /**
   * Runs a callback after the rendering of the frame whose callback calls it. By default a
   * posted message ({@link afterRendering}); with an injected requestFrame and none given, the
   * next frame, the first moment frames driven by hand can show was after a paint.
   */
  afterRender?: (cb: () => void) => void
  /** Ids of the tool cards shown as running in the DOM; read for each paint ack. */
  runningToolIdsInDom?: () => string[]
}

// Events merged per animation frame: a model's text and thought, and a command's output.
const deltaTypes = new Set(['thinking.delta', 'text.delta', 'tool.output'])

// The most text one merged tool.output event carries: beyond it the next event starts, so that
// a command printing fast is bounded by the card's head and tail (commandOutput.ts), not joined
// whole first.
const outputMergeChars = 64 * 1024

/** Reads `[data-tool-state="running"]` cards in the document. */
export function runningToolIdsInDocument(): string[] {
  if (typeof document === 'undefined') return []
  return Array.from(document.querySelectorAll<HTMLElement>('[data-tool-state="running"]'))
    .map((el) => el.dataset.toolCallId ?? '')
    .filter(Boolean)
}

/**
 * Now in milliseconds since the Unix epoch, to the microsecond where the page's clock gives it:
 * the page's times of a batch, noted with its acknowledgement on the bridge log.
 */
export function wallClockMs(): number {
  return typeof performance !== 'undefined' && performance.timeOrigin > 0
    ? performance.timeOrigin + performance.now()
    : Date.now()
}

/** requestAnimationFrame where there is one, else a 16 ms timer. */
export function animationFrame(cb: () => void): void {
  if (typeof requestAnimationFrame === 'function') requestAnimationFrame(() => cb())
  else setTimeout(cb, 16)
}

/**
 * Returns a function that runs each callback it is given in a task of its own, in order: called
 * from a frame callback, after that frame's layout and paint. A MessageChannel, not a timer:
 * a timer may be clamped or throttled; a message runs as soon as the rendering update ends.
 * Each callback gets its own message, so the microtasks one queues (a React commit) run before
 * the next callback reads the DOM.
 */
export function afterRendering(): (cb: () => void) => void {
  if (typeof MessageChannel !== 'function') return (cb) => setTimeout(cb, 0)
  let channel: MessageChannel | null = null
  const queue: Array<() => void> = []
  return (cb) => {
    if (!channel) {
      channel = new MessageChannel()
      channel.port1.onmessage = () => queue.shift()?.()
    }
    queue.push(cb)
    channel.port2.postMessage(null)
  }
}

// Per chat: deltas waiting for the next frame, and events held behind an unpainted running card.
interface ChatFeed {
  deltas: AgentEvent[]
  held: AgentEvent[]
  heldFor: Set<string>
}

/** Applies batches to the state in seq order and acknowledges each once painted. */
export class Feed {
  private feeds = new Map<string, ChatFeed>()
  /** Cards that became running in a commit not yet painted. */
  private unpaintedRunning = new Set<string>()
  private deltaFrameQueued = false
  private readonly backend: Backend
  private readonly requestFrame: (cb: () => void) => void
  private readonly afterRender: (cb: () => void) => void
  private readonly runningInDom: () => string[]

  constructor(
    private readonly cell: StateCell,
    private readonly hooks: FeedHooks,
    opts: FeedOptions = {},
  ) {
    this.backend = cell.backend
    this.requestFrame = opts.requestFrame ?? animationFrame
    this.afterRender = opts.afterRender ?? (opts.requestFrame ? opts.requestFrame : afterRendering())
    this.runningInDom = opts.runningToolIdsInDom ?? runningToolIdsInDocument
  }

  /** Applies one "agent:batch" and schedules its paint acknowledgement. */
  ingest(batch: AgentEvent[]): void {
    if (batch.length === 0) return
    // Applied as they come: the bridge owns the order (see the top of this file).
    const events = batch
    let lastSeq = 0
    for (const ev of events) lastSeq = Math.max(lastSeq, ev.seq)
    const receivedAt = wallClockMs()
    // Scheduled before anything this batch schedules, so that in the frame where a held result
    // is released the acknowledgement reads the DOM first (microtasks run between callbacks).
    this.afterPaint(() => {
      void this.backend.painted(lastSeq, this.runningInDom(), receivedAt, wallClockMs()).catch(() => {})
    })
    const byChat = new Map<string, AgentEvent[]>()
    for (const ev of events) {
      if (this.hooks.takeOther(ev)) continue
      this.hooks.notice(ev)
      const list = byChat.get(ev.chatId)
      if (list) list.push(ev)
      else byChat.set(ev.chatId, [ev])
    }
    const chats = { ...this.cell.get().chats }
    let changed = false
    for (const [chatId, evs] of byChat) {
      const before = chats[chatId] ?? emptyChat(chatId)
      const after = this.hooks.afterEvents(chatId, evs, this.process(chatId, before, evs))
      if (after !== before) {
        chats[chatId] = after
        changed = true
      }
    }
    if (changed) this.cell.set({ chats })
    this.hooks.applied(byChat)
  }

  // Applies the events of one chat in order; returns the new state of that chat.
  private process(chatId: string, start: ChatState, events: AgentEvent[]): ChatState {
    const feed = this.feed(chatId)
    let s = start
    const becameRunning: string[] = []
    for (let i = 0; i < events.length; i++) {
      const ev = events[i]
      if (feed.heldFor.size > 0) {
        feed.held.push(...events.slice(i))
        break
      }
      if (deltaTypes.has(ev.type)) {
        feed.deltas.push(ev)
        continue
      }
      s = this.flushDeltas(s, feed)
      if (ev.type === 'tool.result' && ev.toolCallId && !isDuplicate(s, ev) && this.mustShowRunningFirst(s, ev)) {
        const card = s.tools[ev.toolCallId]
        if (card?.state !== 'running') {
          s = markRunning(s, ev)
          becameRunning.push(ev.toolCallId)
          this.unpaintedRunning.add(ev.toolCallId)
        }
        feed.heldFor.add(ev.toolCallId)
        feed.held.push(...events.slice(i))
        break
      }
      const prev = ev.toolCallId ? s.tools[ev.toolCallId]?.state : undefined
      s = reduceChat(s, ev)
      if (ev.toolCallId && prev !== 'running' && s.tools[ev.toolCallId]?.state === 'running') {
        becameRunning.push(ev.toolCallId)
        this.unpaintedRunning.add(ev.toolCallId)
      }
    }
    if (feed.deltas.length > 0) this.queueDeltaFrame()
    if (becameRunning.length > 0) {
      this.afterPaint(() => {
        for (const id of becameRunning) this.unpaintedRunning.delete(id)
        this.releaseHeld()
      })
    }
    return s
  }

  // A result may be applied only once its card was painted running (a denied card never runs,
  // nor does a call whose result says it did not run).
  private mustShowRunningFirst(s: ChatState, ev: AgentEvent): boolean {
    if (ev.notRun) return false
    const card = s.tools[ev.toolCallId!]
    if (card && (card.state === 'denied' || card.state === 'completed' || card.state === 'failed' || card.state === 'stopped'))
      return false
    if (card?.state === 'running') return this.unpaintedRunning.has(card.id)
    return true
  }

  private releaseHeld(): void {
    const chats = { ...this.cell.get().chats }
    let changed = false
    for (const [chatId, feed] of this.feeds) {
      if (feed.heldFor.size === 0) continue
      for (const id of [...feed.heldFor]) if (!this.unpaintedRunning.has(id)) feed.heldFor.delete(id)
      if (feed.heldFor.size > 0) continue
      const held = feed.held
      feed.held = []
      const before = chats[chatId] ?? emptyChat(chatId)
      const after = this.process(chatId, before, held)
      if (after !== before) {
        chats[chatId] = after
        changed = true
      }
    }
    if (changed) this.cell.set({ chats })
  }

  private feed(chatId: string): ChatFeed {
    let f = this.feeds.get(chatId)
    if (!f) {
      f = { deltas: [], held: [], heldFor: new Set() }
      this.feeds.set(chatId, f)
    }
    return f
  }

  // Consecutive deltas of one message and kind become one event before the reducer sees them.
  private flushDeltas(s: ChatState, feed: ChatFeed): ChatState {
    if (feed.deltas.length === 0) return s
    const merged: AgentEvent[] = []
    const seen = new Set<number>()
    for (const ev of feed.deltas) {
      if (seen.has(ev.seq) || isDuplicate(s, ev)) continue
      seen.add(ev.seq)
      const last = merged[merged.length - 1]
      const sameOutput =
        ev.type !== 'tool.output' ||
        (last?.toolCallId === ev.toolCallId && last?.stream === ev.stream && (last?.text ?? '').length < outputMergeChars)
      if (last && last.type === ev.type && last.messageId === ev.messageId && last.runId === ev.runId && sameOutput) {
        merged[merged.length - 1] = { ...last, seq: ev.seq, text: (last.text ?? '') + (ev.text ?? '') }
      } else {
        merged.push(ev)
      }
    }
    feed.deltas = []
    for (const ev of merged) s = reduceChat(s, ev)
    return s
  }

  private queueDeltaFrame(): void {
    if (this.deltaFrameQueued) return
    this.deltaFrameQueued = true
    this.requestFrame(() => {
      this.deltaFrameQueued = false
      const chats = { ...this.cell.get().chats }
      let changed = false
      for (const [chatId, feed] of this.feeds) {
        if (feed.deltas.length === 0) continue
        const before = chats[chatId] ?? emptyChat(chatId)
        const after = this.flushDeltas(before, feed)
        if (after !== before) {
          chats[chatId] = after
          changed = true
        }
      }
      if (changed) this.cell.set({ chats })
    })
  }

  // Runs cb once the next frame has been rendered: what is committed now is painted by then.
  private afterPaint(cb: () => void): void {
    this.requestFrame(() => this.afterRender(cb))
  }
}
