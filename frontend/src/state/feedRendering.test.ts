import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../backend'
import { FakeBackend, FakeFrames } from '../fakeBackend'
import { StateCell } from './appState'
import { afterRendering, Feed } from './feed'
import { runningToolIds } from '../test/runningToolIds'

// Frames as the web view runs them: a frame's callbacks, then its rendering (what the state
// holds then is what that frame paints), then the tasks posted meanwhile, each on its own.
class RenderedFrames {
  readonly frames = new FakeFrames()
  private posted: Array<() => void> = []
  painted: string[] = []

  constructor(private readonly paint: () => string) {}

  afterRender = (cb: () => void): void => {
    this.posted.push(cb)
  }

  /** One frame: its callbacks, its paint, then the tasks its callbacks posted. */
  frame(): void {
    this.frames.tick()
    this.painted.push(this.paint())
    const run = this.posted
    this.posted = []
    for (const cb of run) cb()
  }
}

function setup() {
  const backend = new FakeBackend()
  const cell = new StateCell(backend)
  const shown = () => {
    const c = cell.get().chats.c1
    if (!c) return ''
    const tools = Object.values(c.tools).map((t) => `${t.id}:${t.state}`)
    return [c.messages.m1?.content ?? '', ...tools].join(' ')
  }
  const frames = new RenderedFrames(shown)
  const running = () => runningToolIds(cell)
  const feed = new Feed(
    cell,
    { takeOther: () => false, notice: () => {}, afterEvents: (_id, _evs, chat) => chat, applied: () => {} },
    { requestFrame: frames.frames.request, afterRender: frames.afterRender, runningToolIdsInDom: running },
  )
  return { backend, frames, feed, shown }
}

function ev(seq: number, e: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent {
  return { v: 1, seq, chatId: 'c1', runId: 'r1', messageId: 'm1', at: '2025-01-01T00:00:00Z', ...e }
}

describe('the feed acknowledging a paint', () => {
  it('acknowledges a batch of text once the first frame after it was rendered, with that text painted', () => {
    const { backend, frames, feed } = setup()
    feed.ingest([ev(1, { type: 'message.started', role: 'assistant' }), ev(2, { type: 'text.delta', text: 'Hello' })])
    expect(backend.callsOf('Painted')).toEqual([])
    frames.frame()
    expect(frames.painted).toEqual(['Hello'])
    expect(backend.callsOf('Painted')).toEqual([[2, []]])
  })

  it('paints a card running in one frame and its result only in a later one, acknowledging it running in between', () => {
    const { backend, frames, feed, shown } = setup()
    feed.ingest([
      ev(1, { type: 'tool.call', toolCallId: 't1', name: 'write_file', state: 'running' }),
      ev(2, { type: 'tool.result', toolCallId: 't1', ok: true }),
    ])
    frames.frame()
    expect(frames.painted).toEqual([' t1:running'])
    expect(backend.callsOf('Painted')).toEqual([[2, ['t1']]])
    frames.frame()
    expect(frames.painted).toEqual([' t1:running', ' t1:completed'])
    expect(shown()).toBe(' t1:completed')
  })
})

describe('afterRendering', () => {
  it('runs each callback in a task of its own, in order, the microtasks of one before the next', async () => {
    const run = afterRendering()
    const seen: string[] = []
    await new Promise<void>((done) => {
      run(() => {
        seen.push('a')
        void Promise.resolve().then(() => seen.push('a, its microtask'))
      })
      run(() => {
        seen.push('b')
        done()
      })
      seen.push('posted')
    })
    expect(seen).toEqual(['posted', 'a', 'a, its microtask', 'b'])
  })
})
