import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../backend'
import { FakeBackend, FakeFrames } from '../fakeBackend'
import { emptyChat, reduceChat } from './chatReducer'
import { appendOutput, emptyOutput, outputHeadChars, outputTailChars, outputText } from './commandOutput'
import { AppStore } from './store'

let seq = 0
const ev = (e: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent =>
  ({ v: 1, seq: ++seq, chatId: 'c1', runId: 'r1', messageId: 'm1', at: '2025-01-01T00:00:00Z', ...e }) as AgentEvent

describe('a command card keeps its output', () => {
  it('in the order it came, stdout and stderr apart, a run of one stream joined', () => {
    let out = appendOutput(emptyOutput, 'stdout', 'Ran 2 tests\n')
    out = appendOutput(out, 'stderr', 'FAIL: test_add\n')
    out = appendOutput(out, 'stderr', 'AssertionError\n')
    out = appendOutput(out, 'stdout', 'done\n')
    expect(out.head).toEqual([
      { stream: 'stdout', text: 'Ran 2 tests\n' },
      { stream: 'stderr', text: 'FAIL: test_add\nAssertionError\n' },
      { stream: 'stdout', text: 'done\n' },
    ])
    expect(out.cutChars).toBe(0)
  })

  it('bounded whatever the command prints: its head and its tail, the middle counted', () => {
    let out = emptyOutput
    const line = 'x'.repeat(99) + '\n'
    const lines = 20000 // 2,000,000 characters
    out = appendOutput(out, 'stdout', 'FIRST\n')
    for (let i = 0; i < lines; i++) out = appendOutput(out, i % 1000 === 0 ? 'stderr' : 'stdout', line)
    out = appendOutput(out, 'stdout', 'LAST\n')
    const total = 6 + lines * line.length + 5
    expect(out.headChars).toBe(outputHeadChars)
    expect(out.tailChars).toBe(outputTailChars)
    expect(out.headChars + out.tailChars + out.cutChars).toBe(total)
    expect(outputText(out).startsWith('FIRST\n')).toBe(true)
    expect(outputText(out).endsWith('LAST\n')).toBe(true)
    expect(outputText(out).length).toBe(outputHeadChars + outputTailChars)
  })

  it('cut at once when one piece is larger than the tail', () => {
    const out = appendOutput(appendOutput(emptyOutput, 'stdout', 'a'.repeat(outputHeadChars)), 'stderr', 'b'.repeat(outputTailChars * 3))
    expect(out.tailChars).toBe(outputTailChars)
    expect(out.cutChars).toBe(outputTailChars * 2)
    expect(out.tail).toEqual([{ stream: 'stderr', text: 'b'.repeat(outputTailChars) }])
  })
})

describe('tool.output in the reducer', () => {
  it('adds to the running card of its call, and creates a card it does not know', () => {
    let s = reduceChat(emptyChat('c1'), ev({ type: 'tool.call', toolCallId: 't1', name: 'run_command', args: { command: 'npm test' }, state: 'running' }))
    s = reduceChat(s, ev({ type: 'tool.output', toolCallId: 't1', stream: 'stdout', text: 'ok\n' }))
    s = reduceChat(s, ev({ type: 'tool.output', toolCallId: 't1', stream: 'stderr', text: 'warn\n' }))
    expect(s.tools.t1.state).toBe('running')
    expect(s.tools.t1.commandOutput?.head).toEqual([
      { stream: 'stdout', text: 'ok\n' },
      { stream: 'stderr', text: 'warn\n' },
    ])
    s = reduceChat(s, ev({ type: 'tool.output', toolCallId: 't9', stream: 'stdout', text: 'late\n' }))
    expect(outputText(s.tools.t9.commandOutput!)).toBe('late\n')
  })

  it('keeps the output seen live once the result arrives, with how the command ended', () => {
    let s = reduceChat(emptyChat('c1'), ev({ type: 'tool.call', toolCallId: 't1', name: 'run_command', state: 'running' }))
    s = reduceChat(s, ev({ type: 'tool.output', toolCallId: 't1', stream: 'stdout', text: 'ok\n' }))
    s = reduceChat(
      s,
      ev({
        type: 'tool.result',
        toolCallId: 't1',
        ok: true,
        output: 'exit status 1',
        details: { command: { exitCode: 1, durationMs: 1200, changes: [{ path: 'a.txt', kind: 'created', bytes: 3, diff: '+a' }], notUndoable: ['big.bin'] } },
      } as Partial<AgentEvent> & Pick<AgentEvent, 'type'>),
    )
    expect(s.tools.t1.state).toBe('completed')
    expect(outputText(s.tools.t1.commandOutput!)).toBe('ok\n')
    expect(s.tools.t1.details?.command).toMatchObject({ exitCode: 1, durationMs: 1200, notUndoable: ['big.bin'] })
    expect(s.tools.t1.details?.command?.changes).toEqual([{ path: 'a.txt', kind: 'created', bytes: 3, diff: '+a' }])
  })
})

describe('tool.output in the store', () => {
  it('is merged per animation frame, per call and stream, and always applied before its result', () => {
    const backend = new FakeBackend()
    const frames = new FakeFrames()
    const store = new AppStore({ backend, requestFrame: frames.request, runningToolIdsInDom: () => ['t1'] })
    store.ingest([ev({ type: 'tool.call', toolCallId: 't1', name: 'run_command', state: 'running' })])
    frames.drain()
    store.ingest([
      ev({ type: 'tool.output', toolCallId: 't1', stream: 'stdout', text: 'a' }),
      ev({ type: 'tool.output', toolCallId: 't1', stream: 'stdout', text: 'b' }),
      ev({ type: 'tool.output', toolCallId: 't1', stream: 'stderr', text: 'c' }),
    ])
    // not applied before the frame
    expect(store.getState().chats.c1.tools.t1.commandOutput).toBeUndefined()
    frames.tick()
    expect(store.getState().chats.c1.tools.t1.commandOutput?.head).toEqual([
      { stream: 'stdout', text: 'ab' },
      { stream: 'stderr', text: 'c' },
    ])
    store.ingest([
      ev({ type: 'tool.output', toolCallId: 't1', stream: 'stdout', text: 'd' }),
      ev({ type: 'tool.result', toolCallId: 't1', ok: true, output: 'exit status 0', details: { command: { exitCode: 0, durationMs: 5 } } } as Partial<AgentEvent> & Pick<AgentEvent, 'type'>),
    ])
    const card = store.getState().chats.c1.tools.t1
    expect(card.state).toBe('completed')
    expect(outputText(card.commandOutput!)).toBe('abcd')
  })
})
