import { describe, expect, it } from 'vitest'
import type { AgentEvent, OpenedChat, ToolCallRecord } from '../backend'
import { FakeBackend, FakeFrames } from '../fakeBackend'
import { chatFromSnapshot, emptyChat, mergeLive, reduceChat, stoppedBeforeTheEnd, type ChatState } from './chatReducer'
import { AppStore, budgetKey } from './store'

// A store on a fake backend whose "DOM" is the store's own state: the cards it shows running.
function setup() {
  const backend = new FakeBackend()
  const frames = new FakeFrames()
  const runningCards = (s: AppStore) =>
    Object.values(s.getState().chats)
      .flatMap((c) => Object.values(c.tools))
      .filter((t) => t.state === 'running')
      .map((t) => t.id)
  const store: AppStore = new AppStore({
    backend,
    requestFrame: frames.request,
    runningToolIdsInDom: () => runningCards(store),
  })
  backend.onBatch((events) => store.ingest(events))
  // What each painted frame showed, per card.
  const painted: Record<string, string[]> = {}
  frames.onPaint = () => {
    for (const c of Object.values(store.getState().chats))
      for (const t of Object.values(c.tools)) {
        const seen = (painted[t.id] ??= [])
        if (seen[seen.length - 1] !== t.state) seen.push(t.state)
      }
  }
  const chat = (id = 'c1') => store.getState().chats[id]
  return { backend, frames, store, painted, chat }
}

function ev(seq: number, e: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent {
  return { v: 1, seq, chatId: 'c1', runId: 'r1', messageId: 'm1', at: '2025-01-01T00:00:00Z', ...e }
}

function apply(events: AgentEvent[], start: ChatState = emptyChat('c1')): ChatState {
  return events.reduce(reduceChat, start)
}

describe('the store applies a burst', () => {
  it('paints a tool card running before completed when call, result and done arrive in one task', () => {
    const { backend, frames, painted, chat } = setup()
    backend.emit([
      { seq: 1, type: 'phase', phase: 'tools', busy: true, runId: 'r1' },
      { seq: 2, type: 'tool.call', toolCallId: 't1', name: 'write_file', args: { path: 'a.txt' }, state: 'running', runId: 'r1', messageId: 'm1' },
      { seq: 3, type: 'tool.result', toolCallId: 't1', ok: true, output: 'wrote', durationMs: 1, runId: 'r1', messageId: 'm1' },
      { seq: 4, type: 'message.completed', runId: 'r1', messageId: 'm1', doneReason: 'stop' },
      { seq: 5, type: 'phase', phase: 'idle', runId: 'r1' },
      { seq: 6, type: 'run.finished', stopReason: 'completed', runId: 'r1' },
    ])
    expect(chat().tools.t1.state).toBe('running')
    expect(chat().phase).toBe('tools')
    frames.drain()
    frames.tick() // the frame that paints the last change
    expect(painted.t1).toEqual(['running', 'completed'])
    expect(chat().tools.t1.state).toBe('completed')
    expect(chat().phase).toBe('idle')
    // The batch was acknowledged with the card running, before its result was applied.
    expect(backend.callsOf('Painted')[0]).toEqual([6, ['t1']])
  })

  it('paints each of five instant calls running, even with no tool.call for them at all', () => {
    const { backend, frames, painted, chat } = setup()
    const ids = ['a', 'b', 'c', 'd', 'e']
    backend.emit(
      ids.flatMap((id, i) => [
        { seq: 10 + i * 2, type: 'tool.call' as const, toolCallId: id, name: 'list_dir', state: 'pending' as const, runId: 'r1' },
        { seq: 11 + i * 2, type: 'tool.result' as const, toolCallId: id, ok: true, runId: 'r1' },
      ]),
    )
    backend.emit([{ seq: 30, type: 'tool.result', toolCallId: 'ghost', ok: false, output: 'boom', runId: 'r1' }])
    frames.drain(50)
    frames.tick()
    for (const id of ids) expect(painted[id]).toContain('running')
    for (const id of ids) expect(chat().tools[id].state).toBe('completed')
    expect(painted.ghost).toEqual(['running', 'failed'])
  })

  it('never paints running a call whose result says it did not run', () => {
    const { backend, frames, painted, chat } = setup()
    backend.emit([
      { seq: 1, type: 'tool.call', toolCallId: 'seen', name: 'list_dir', state: 'pending', runId: 'r1' },
      { seq: 2, type: 'tool.result', toolCallId: 'seen', ok: false, output: 'not run: …', notRun: 'loop', runId: 'r1' },
      { seq: 3, type: 'tool.result', toolCallId: 'unseen', ok: false, output: 'not run: …', notRun: 'stopped', runId: 'r1' },
    ])
    frames.drain(50)
    frames.tick()
    expect(painted.seen).toEqual(['not_run'])
    expect(painted.unseen).toEqual(['not_run'])
    expect(chat().tools.unseen.state).toBe('not_run')
  })

  it('applies a result at once when its running state was already painted', () => {
    const { backend, frames, chat } = setup()
    backend.emit([{ seq: 1, type: 'tool.call', toolCallId: 't1', name: 'read_file', state: 'running' }])
    frames.drain()
    backend.emit([{ seq: 2, type: 'tool.result', toolCallId: 't1', ok: true }])
    expect(chat().tools.t1.state).toBe('completed')
  })

  it('merges deltas per frame and flushes them before a lifecycle event', () => {
    const { backend, frames, chat, store } = setup()
    let notifications = 0
    store.subscribe(() => notifications++)
    backend.emit([
      { seq: 1, type: 'text.delta', messageId: 'm1', text: 'Hel' },
      { seq: 2, type: 'text.delta', messageId: 'm1', text: 'lo' },
    ])
    expect(chat()).toBeUndefined()
    expect(notifications).toBe(0)
    frames.tick()
    expect(chat().messages.m1.content).toBe('Hello')
    expect(notifications).toBe(1)
    backend.emit([
      { seq: 3, type: 'text.delta', messageId: 'm1', text: ' world' },
      { seq: 4, type: 'message.completed', messageId: 'm1', doneReason: 'stop' },
    ])
    expect(chat().messages.m1.content).toBe('Hello world')
    expect(chat().messages.m1.complete).toBe(true)
  })

  it('acknowledges every batch two frames later with its highest seq', () => {
    const { backend, frames } = setup()
    backend.emit([{ seq: 7, type: 'phase', phase: 'streaming', busy: true }, { seq: 5, type: 'run.started' }])
    frames.tick()
    expect(backend.callsOf('Painted')).toEqual([])
    frames.tick()
    expect(backend.callsOf('Painted')).toEqual([[7, []]])
  })

  it('keeps the events of different chats apart', () => {
    const { backend, frames, chat } = setup()
    backend.emit([
      { seq: 1, chatId: 'c1', type: 'phase', phase: 'streaming', busy: true },
      { seq: 2, chatId: 'c2', type: 'phase', phase: 'tools', busy: true },
      { seq: 3, chatId: 'c2', type: 'tool.call', toolCallId: 'x', state: 'running' },
      { seq: 4, chatId: 'c1', type: 'text.delta', messageId: 'm1', text: 'one' },
      { seq: 5, chatId: 'c2', type: 'text.delta', messageId: 'm2', text: 'two' },
    ])
    frames.drain()
    expect(chat('c1').phase).toBe('streaming')
    expect(chat('c2').phase).toBe('tools')
    expect(Object.keys(chat('c1').tools)).toEqual([])
    expect(chat('c1').messages.m1.content).toBe('one')
    expect(chat('c2').messages.m2.content).toBe('two')
  })
})

describe('the reducer', () => {
  it('creates a card for an event about an unknown tool call', () => {
    for (const type of ['tool.result', 'tool.progress', 'tool.approval_requested', 'tool.approval_resolved'] as const) {
      const s = apply([ev(1, { type, toolCallId: 'u1', ok: true, decision: 'allow' })])
      expect(s.tools.u1, type).toBeDefined()
      expect(s.timeline).toEqual([{ kind: 'tool', id: 'u1' }])
    }
  })

  it('ignores a duplicate seq and applies events given out of order by seq in the store', () => {
    const once = apply([ev(1, { type: 'text.delta', messageId: 'm1', text: 'a' }), ev(2, { type: 'text.delta', messageId: 'm1', text: 'b' })])
    const twice = apply([ev(2, { type: 'text.delta', messageId: 'm1', text: 'b' })], once)
    expect(twice).toBe(once)
    expect(twice.messages.m1.content).toBe('ab')
  })

  // The order of a batch is the bridge's (events/bridge_test.go:
  // TestLifecycleOrderIsPreservedWithConcurrentChats, TestSeqIsStrictlyIncreasingAndStampsTheEnvelope).
  it('drops the duplicates of a batch in the store', () => {
    const { backend, frames, chat } = setup()
    backend.emit([
      { seq: 1, type: 'text.delta', messageId: 'm1', text: 'a' },
      { seq: 2, type: 'text.delta', messageId: 'm1', text: 'b' },
      { seq: 3, type: 'text.delta', messageId: 'm1', text: 'c' },
    ])
    backend.emit([{ seq: 2, type: 'text.delta', messageId: 'm1', text: 'b' }])
    frames.drain()
    expect(chat().messages.m1.content).toBe('abc')
  })

  it('never moves a card back from a final state when a late event arrives', () => {
    const s = apply([
      ev(5, { type: 'tool.result', toolCallId: 't', ok: true }),
      ev(3, { type: 'tool.call', toolCallId: 't', name: 'write_file', state: 'running' }),
      ev(4, { type: 'phase', phase: 'tools', busy: true }),
    ])
    expect(s.tools.t.state).toBe('completed')
    expect(s.tools.t.name).toBe('write_file')
    expect(s.phase).toBe('idle')
  })

  it('tolerates gaps in seq (other chats use the numbers in between)', () => {
    const s = apply([ev(10, { type: 'phase', phase: 'streaming', busy: true }), ev(250, { type: 'phase', phase: 'idle' })])
    expect(s.phase).toBe('idle')
    expect(s.lastSeq).toBe(250)
  })

  it('follows the approval flow: awaiting → allowed → running → completed', () => {
    let s = apply([
      ev(1, { type: 'tool.call', toolCallId: 't', name: 'write_file', args: { path: 'x' }, state: 'awaiting_approval' }),
      ev(2, { type: 'tool.approval_requested', toolCallId: 't', by: 'policy' }),
      ev(3, { type: 'phase', phase: 'awaiting_approval' }),
    ])
    expect(s.tools.t.state).toBe('awaiting_approval')
    s = apply([ev(4, { type: 'tool.approval_resolved', toolCallId: 't', decision: 'allow', by: 'user' })], s)
    expect(s.tools.t.state).toBe('pending')
    expect(s.tools.t.approval).toEqual({ decision: 'allow', by: 'user', reason: '' })
    s = apply([ev(5, { type: 'tool.call', toolCallId: 't', state: 'running' })], s)
    expect(s.tools.t.state).toBe('running')
    s = apply([ev(6, { type: 'tool.result', toolCallId: 't', ok: true })], s)
    expect(s.tools.t.state).toBe('completed')
  })

  it('keeps a denied card denied when its result arrives', () => {
    const s = apply([
      ev(1, { type: 'tool.call', toolCallId: 't', state: 'awaiting_approval' }),
      ev(2, { type: 'tool.approval_resolved', toolCallId: 't', decision: 'deny', by: 'user', reason: 'no' }),
      ev(3, { type: 'tool.result', toolCallId: 't', ok: false, output: 'denied by the user' }),
    ])
    expect(s.tools.t.state).toBe('denied')
  })

  it('shows a denied result without a running frame in the store', () => {
    const { backend, frames, painted } = setup()
    backend.emit([
      { seq: 1, type: 'tool.call', toolCallId: 't', state: 'awaiting_approval' },
      { seq: 2, type: 'tool.approval_resolved', toolCallId: 't', decision: 'deny', by: 'policy' },
      { seq: 3, type: 'tool.result', toolCallId: 't', ok: false },
    ])
    frames.drain()
    expect(painted.t).toEqual(['denied'])
  })

  it('interrupts open cards when the run finishes, except those waiting for a decision', () => {
    const s = apply([
      ev(1, { type: 'tool.call', toolCallId: 'a', state: 'running' }),
      ev(2, { type: 'tool.call', toolCallId: 'b', state: 'awaiting_approval' }),
      ev(3, { type: 'run.finished', stopReason: 'awaiting_approval' }),
    ])
    expect(s.tools.a.state).toBe('interrupted')
    expect(s.tools.b.state).toBe('awaiting_approval')
  })

  it('times the thought from its first delta to the first text', () => {
    const s = apply([
      ev(1, { type: 'thinking.delta', text: 'hmm', at: '2025-01-01T00:00:00Z' }),
      ev(2, { type: 'text.delta', text: 'Hi', at: '2025-01-01T00:00:03.5Z' }),
    ])
    expect(s.messages.m1.thinkingMs).toBe(3500)
    expect(s.messages.m1.thinking).toBe('hmm')
  })

  it('shows an error inline and keeps the partial answer', () => {
    const s = apply([
      ev(1, { type: 'text.delta', text: 'partial' }),
      ev(2, { type: 'error', code: 'stream', message: 'Ollama closed the stream.' }),
    ])
    expect(s.messages.m1.content).toBe('partial')
    expect(s.timeline[1]).toMatchObject({ kind: 'notice', tone: 'error', text: 'Ollama closed the stream.' })
  })
})

describe('rehydration from the store', () => {
  const record = (over: Partial<ToolCallRecord>): ToolCallRecord => ({
    id: 't',
    chatId: 'c1',
    runId: 'r1',
    messageId: 'm2',
    name: 'write_file',
    args: { path: 'a.txt' },
    pending: false,
    ok: true,
    output: '',
    startedAt: '2025-01-01T00:00:01Z',
    finishedAt: '2025-01-01T00:00:02Z',
    durationMs: 1000,
    ...over,
  })
  // toolStates: what agentloop.RecordState gives each record (its order is tested in Go,
  // agentloop/toolstate_test.go); by default every record completed.
  const opened = (records: ToolCallRecord[], liveRunId = '', phase: OpenedChat['phase'] = 'idle', toolStates?: Record<string, string>): OpenedChat => ({
    chat: { id: 'c1', title: 't', model: 'm', workspace: '/w', createdAt: '', updatedAt: '', messageCount: 2, phase },
    messages: [
      { id: 'm1', chatId: 'c1', role: 'user', content: 'make a.txt', thinking: '', thinkingMs: 0, toolCalls: null, toolName: '', toolCallId: '', createdAt: '1', updatedAt: '1', complete: true, doneReason: '' },
      { id: 'm2', chatId: 'c1', role: 'assistant', content: '', thinking: 'plan', thinkingMs: 2000, toolCalls: records.map((r) => ({ id: r.id, name: r.name, args: r.args })), toolName: '', toolCallId: '', createdAt: '2', updatedAt: '2', complete: true, doneReason: 'stop' },
      { id: 'm3', chatId: 'c1', role: 'tool', content: 'ok', thinking: '', thinkingMs: 0, toolCalls: null, toolName: 'write_file', toolCallId: 't', createdAt: '3', updatedAt: '3', complete: true, doneReason: '' },
    ],
    toolCalls: records,
    phase,
    liveRunId,
    toolStates: toolStates ?? Object.fromEntries(records.map((r) => [r.id, r.pending ? (liveRunId ? 'running' : 'interrupted') : 'completed'])),
  })

  // Which state a record is in is decided by the Go side (agentloop.RecordState, with these
  // cases in agentloop/toolstate_test.go); the window draws the state it is given.
  it.each(['interrupted', 'running', 'completed', 'failed', 'denied', 'awaiting_approval', 'pending', 'not_run', 'stopped'] as const)(
    'draws a stored call %s when the Go side says so',
    (want) => {
      const s = chatFromSnapshot(opened([record({ pending: true, finishedAt: '' })], 'r1', 'tools', { t: want }))
      expect(s.tools.t.state).toBe(want)
    },
  )

  it('draws a stored call the Go side gives no known state interrupted, never running', () => {
    expect(chatFromSnapshot(opened([record({ pending: true, finishedAt: '' })], 'r1', 'tools', {})).tools.t.state).toBe('interrupted')
    expect(chatFromSnapshot(opened([record({ pending: true, finishedAt: '' })], 'r1', 'tools', { t: 'exploded' })).tools.t.state).toBe('interrupted')
  })

  it('places each card after its assistant message and hides tool messages', () => {
    const s = chatFromSnapshot(opened([record({})]))
    expect(s.timeline).toEqual([
      { kind: 'message', id: 'm1' },
      { kind: 'message', id: 'm2' },
      { kind: 'tool', id: 't' },
    ])
    expect(s.messages.m2.thinkingMs).toBe(2000)
  })

  it('is never busy without a live run', () => {
    expect(chatFromSnapshot(opened([], '', 'streaming')).phase).toBe('idle')
  })

  it('lets what was seen live win over the checkpoint', () => {
    const live = apply([
      ev(1, { type: 'message.started', messageId: 'm4', role: 'assistant' }),
      ev(2, { type: 'text.delta', messageId: 'm4', text: 'Hello there' }),
      ev(3, { type: 'phase', phase: 'streaming', busy: true }),
    ])
    const snap = chatFromSnapshot(opened([record({})], 'r1', 'streaming'))
    const m = mergeLive(snap, live)
    expect(m.timeline.map((e) => e.id)).toEqual(['m1', 'm2', 't', 'm4'])
    expect(m.messages.m4.content).toBe('Hello there')
    expect(m.phase).toBe('streaming')
  })

  const partial = (o: OpenedChat): OpenedChat => ({
    ...o,
    messages: o.messages!.map((m) => (m.id === 'm2' ? { ...m, content: 'Half an ans', complete: false, doneReason: '' } : m)),
  })

  it('notes under a partial answer without a live run that it stopped before the end', () => {
    const s = chatFromSnapshot(partial(opened([record({ pending: true, finishedAt: '' })])))
    expect(s.timeline).toEqual([
      { kind: 'message', id: 'm1' },
      { kind: 'message', id: 'm2' },
      { kind: 'tool', id: 't' },
      { kind: 'notice', id: 'stopped:m2', tone: 'info', text: stoppedBeforeTheEnd },
    ])
    expect(s.messages.m2.content).toBe('Half an ans')
  })

  it('adds no note to a partial answer its live run is still writing, nor to a finished one', () => {
    const live = chatFromSnapshot(partial(opened([record({ pending: true, finishedAt: '' })], 'r1', 'streaming')))
    expect(live.timeline.some((e) => e.kind === 'notice')).toBe(false)
    expect(chatFromSnapshot(opened([record({})])).timeline.some((e) => e.kind === 'notice')).toBe(false)
  })

  it('opens a chat whose call was rejected at argument validation (no startedAt, arguments a string)', () => {
    // Issue 13: the reducer sorted the records on startedAt, which such a record lacks.
    const rejected = { id: 'bad', chatId: 'c1', runId: 'r1', messageId: 'm2', name: 'write_file', args: 'path=a.txt', pending: false, ok: false, output: 'invalid arguments: want an object', finishedAt: '2025-01-01T00:00:03Z' }
    const ran = record({ id: 'good' })
    const o = opened([ran])
    const s = chatFromSnapshot({ ...o, toolCalls: [rejected as unknown as ToolCallRecord, ran], toolStates: { bad: 'failed', good: 'completed' } })
    expect(s.tools.bad).toMatchObject({ state: 'failed', args: 'path=a.txt', output: 'invalid arguments: want an object' })
    expect(s.tools.good.state).toBe('completed')
    expect(s.timeline.map((e) => e.id)).toEqual(['m1', 'm2', 'good', 'bad'])
  })

  it('opens a chat whatever optional field its records lack, and whatever type their values have', () => {
    const bare = {
      chat: { id: 'c1' },
      messages: [
        { id: 'u' , role: 'user', content: 'hi' },
        { id: 'a', role: 'assistant' },
        { id: 'x', role: 'developer', content: 42, thinking: null, toolCalls: 'none', usage: 'lots' },
        null,
        'not a message',
        { role: 'assistant', content: 'no id' },
      ],
      toolCalls: [
        { id: 't0', name: 'read_file' },
        { id: 't1', name: 'write_file', messageId: 'a', args: 7, details: 'not json', approval: 'yes', durationMs: 'fast', startedAt: 'yesterday', finishedAt: '0001-01-01T00:00:00Z' },
        { id: 't2', name: 'write_file', messageId: 'a', args: '{"path":"b.txt"}', details: '{"path":"b.txt","diff":"+b"}', ok: true, finishedAt: '2025-01-01T00:00:02Z' },
        { id: 't3', messageId: 'a', awaitingApproval: true },
        { id: 't4', messageId: 'a', pending: true, state: 'exploded' },
        { name: 'no id' },
        17,
      ],
      phase: 'dancing',
      liveRunId: null,
      // as agentloop.RecordState gives them (t1's zero finishedAt is no finish)
      toolStates: { t0: 'interrupted', t1: 'interrupted', t2: 'completed', t3: 'awaiting_approval', t4: 'interrupted', t9: 7 },
    }
    const s = chatFromSnapshot(bare)
    expect(s.phase).toBe('idle')
    expect(s.timeline.map((e) => `${e.kind}:${e.id}`)).toEqual([
      'message:u',
      'message:a',
      'tool:t1',
      'tool:t2',
      'tool:t3',
      'tool:t4',
      'message:x',
      'tool:t0',
    ])
    expect(s.messages.x).toMatchObject({ role: 'assistant', content: '42', thinking: '', usage: null })
    expect(s.tools.t0.state).toBe('interrupted')
    expect(s.tools.t1).toMatchObject({ state: 'interrupted', details: null, approval: null, durationMs: null, args: 7 })
    expect(s.tools.t2).toMatchObject({ state: 'completed', details: { path: 'b.txt', diff: '+b' } })
    expect(s.tools.t3.state).toBe('awaiting_approval')
    expect(s.tools.t4.state).toBe('interrupted')
    expect(chatFromSnapshot(null, 'c9')).toMatchObject({ chatId: 'c9', timeline: [], loaded: true })
  })

  it('opens a chat through the store', async () => {
    const { backend, store, chat } = setup()
    backend.opened.c1 = opened([record({ pending: true, finishedAt: '' })])
    await store.selectChat('c1')
    expect(chat().loaded).toBe(true)
    expect(chat().tools.t.state).toBe('interrupted')
  })
})

describe('sending', () => {
  it('shows the user message at once and binds it to its stored id', async () => {
    const { backend, store, chat } = setup()
    await store.selectChat('c1')
    await store.send('build a site')
    expect(backend.callsOf('Send')).toEqual([['c1', 'build a site']])
    const [first] = chat().timeline
    expect(chat().messages[first.id]).toMatchObject({ role: 'user', content: 'build a site' })
    backend.emit([{ seq: 1, type: 'message.started', role: 'user', messageId: 'u1' }])
    expect(chat().messages.u1.content).toBe('build a site')
    expect(chat().timeline).toHaveLength(1)
  })

  it('creates a chat when none is active and switches to it', async () => {
    const { backend, store } = setup()
    backend.nextChatId = 'new1'
    await store.send('hello')
    expect(backend.callsOf('Send')).toEqual([['', 'hello']])
    expect(store.getState().activeChatId).toBe('new1')
    expect(store.getState().chats.new1.timeline).toHaveLength(1)
  })

  it('measures pull speed from progress events', async () => {
    const backend = new FakeBackend()
    let now = 0
    const store = new AppStore({ backend, requestFrame: () => {}, now: () => now })
    await store.start()
    const done = store.pullModel('llama3.2')
    backend.emitPull({ name: 'llama3.2', status: 'pulling', total: 1000, completed: 0 })
    now = 1000
    backend.emitPull({ name: 'llama3.2', status: 'pulling', total: 1000, completed: 500 })
    expect(store.getState().pulls['llama3.2']).toMatchObject({ completed: 500, total: 1000, bytesPerSec: 500 })
    backend.finishPull?.()
    await done
    expect(store.getState().pulls['llama3.2'].done).toBe(true)
  })
})

describe('start', () => {
  it('opens the newest chat, so that coming back shows the chat as it was', async () => {
    const backend = new FakeBackend()
    backend.chats = [
      { id: 'old', title: 'Old', model: 'm', workspace: '/w', createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z', messageCount: 2, phase: 'idle' },
      { id: 'new', title: 'New', model: 'm', workspace: '/w', createdAt: '2025-01-02T00:00:00Z', updatedAt: '2025-01-02T00:00:00Z', messageCount: 2, phase: 'idle' },
    ]
    const store = new AppStore({ backend, requestFrame: () => {} })
    await store.start()
    expect(store.getState().activeChatId).toBe('new')
    expect(backend.callsOf('OpenChat')).toEqual([['new']])
  })

  it('asks the budget of a message for the open chat and model, once each', async () => {
    const backend = new FakeBackend()
    backend.chats = [
      { id: 'a', title: 'A', createdAt: '2025-01-02T00:00:00Z', updatedAt: '2025-01-02T00:00:00Z', messageCount: 0, phase: 'idle' },
      { id: 'b', title: 'B', createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z', messageCount: 0, phase: 'idle' },
    ]
    const store = new AppStore({ backend, requestFrame: () => {} })
    await store.start()
    await store.loadBudget()
    expect(backend.callsOf('PromptBudget')).toEqual([['a', 'qwen3:4b']])
    expect(store.getState().budgets[budgetKey(store.getState())]).toMatchObject({ maxTokens: 32000 })
    await store.selectChat('b')
    await store.setModel('gemma3:1b')
    await store.selectChat('a')
    await store.loadBudget()
    expect(backend.callsOf('PromptBudget')).toEqual([
      ['a', 'qwen3:4b'],
      ['b', 'qwen3:4b'],
      ['b', 'gemma3:1b'],
      ['a', 'gemma3:1b'],
    ])
  })

  it('opens nothing when there is no chat yet', async () => {
    const backend = new FakeBackend()
    const store = new AppStore({ backend, requestFrame: () => {} })
    await store.start()
    expect(store.getState().activeChatId).toBeNull()
  })
})
