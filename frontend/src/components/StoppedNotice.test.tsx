import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen } from '@testing-library/react'
import { FakeBackend } from '../fakeBackend'
import type { OpenedChat, StoredMessage, ToolCallRecord } from '../backend'
import { chatFromSnapshot, cutShortText, stoppedBeforeTheEnd, stoppedText } from '../state/chatReducer'
import { ChatView } from './ChatView'
import { renderWithStore } from '../test/renderWithStore'

function stored(id: string, role: 'user' | 'assistant', content: string, complete: boolean, doneReason = ''): StoredMessage {
  return { id, chatId: 'c1', role, content, thinking: '', thinkingMs: 0, toolCalls: null, toolName: '', toolCallId: '', runId: 'r1', createdAt: id, updatedAt: id, complete, doneReason }
}

/** Chat c1 as the store keeps it after a restart: a question and the answer run r1 left. */
function reopened(answer: StoredMessage, stopped: OpenedChat['stopped'], toolCalls: ToolCallRecord[] = []): OpenedChat {
  return {
    chat: { id: 'c1', title: 'Stopped', model: 'qwen3:4b', workspace: '/w', createdAt: '', updatedAt: '', messageCount: 2, phase: 'idle' },
    messages: [stored('m1', 'user', 'Write a long answer', true), answer],
    toolCalls,
    phase: 'idle',
    liveRunId: '',
    stopped,
  }
}

const notices = (o: OpenedChat) => chatFromSnapshot(o).timeline.filter((e) => e.kind === 'notice')

describe('a chat reopened after its last answer was cut short', () => {
  it('ends with "Stopped." once, under an answer the user stopped', () => {
    const o = reopened(stored('m2', 'assistant', 'Half an an', false, 'aborted'), { runId: 'r1' })
    expect(notices(o)).toEqual([{ kind: 'notice', id: 'stopped-run:r1', tone: 'info', text: stoppedText }])
    expect(chatFromSnapshot(o).timeline.at(-1)?.id).toBe('stopped-run:r1')
  })

  it('ends with "Cut short" once, under an answer a killed process or the app quitting left', () => {
    const o = reopened(stored('m2', 'assistant', 'Half an an', false), { runId: 'r1', interrupted: true })
    expect(notices(o)).toEqual([{ kind: 'notice', id: 'stopped-run:r1', tone: 'info', text: cutShortText }])
  })

  it('ends with "Stopped." after a card the user stopped, whose answer was whole', () => {
    const call: ToolCallRecord = { id: 't', chatId: 'c1', runId: 'r1', messageId: 'm2', name: 'run_command', args: {}, pending: false, ok: false, output: '', stopped: true, startedAt: '1', finishedAt: '2', durationMs: 1 }
    const answer = { ...stored('m2', 'assistant', '', true, 'stop'), toolCalls: [{ id: 't', name: 'run_command', args: {} }] }
    const s = chatFromSnapshot({ ...reopened(answer, { runId: 'r1' }, [call]), toolStates: { t: 'stopped' } })
    expect(s.timeline.map((e) => e.id)).toEqual(['m1', 'm2', 't', 'stopped-run:r1'])
  })

  it('says nothing more where the Go side says no run was cut short', () => {
    expect(notices(reopened(stored('m2', 'assistant', 'Done.', true, 'stop'), null))).toEqual([])
  })

  it.each([
    ['stopped', { runId: 'r1' }, 'aborted'],
    ['interrupted', { runId: 'r1', interrupted: true }, ''],
  ] as const)('offers Continue for a run %s, which sends the message that goes on', async (_, stopped, doneReason) => {
    const backend = new FakeBackend()
    backend.opened.c1 = reopened(stored('m2', 'assistant', 'Half an an', false, doneReason), stopped)
    const { store } = renderWithStore(<ChatView />, backend)
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
    expect((screen.getByRole('button', { name: 'Regenerate the stopped answer' }) as HTMLButtonElement).disabled).toBe(false)
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Continue the stopped answer' })))
    expect(backend.calls.filter((c) => c.method === 'Send').map((c) => c.args)).toEqual([['c1', 'Continue']])
  })

  it.each([
    ['stopped', { runId: 'r1' }],
    ['interrupted', { runId: 'r1', interrupted: true }],
  ] as const)('offers only Regenerate for a run %s before any answer text was stored', async (_, stopped) => {
    const backend = new FakeBackend()
    const o = reopened(stored('m2', 'assistant', '', true), stopped)
    backend.opened.c1 = { ...o, messages: (o.messages ?? []).slice(0, 1) }
    const { store } = renderWithStore(<ChatView />, backend)
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
    expect(screen.getByRole('button', { name: 'Regenerate the stopped answer' })).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Continue the stopped answer' })).toBeNull()
  })

  it('offers only Regenerate where the stopped answer holds a thought and no text', async () => {
    const backend = new FakeBackend()
    backend.opened.c1 = reopened({ ...stored('m2', 'assistant', '', false, 'aborted'), thinking: 'Let me see' }, { runId: 'r1' })
    const { store } = renderWithStore(<ChatView />, backend)
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
    expect(screen.getByRole('button', { name: 'Regenerate the stopped answer' })).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Continue the stopped answer' })).toBeNull()
  })
})

describe('a stopped answer that holds text and a tool call', () => {
  const regenerates = () => screen.queryAllByRole('button', { name: /regenerate/i })
  const call: ToolCallRecord = { id: 't', chatId: 'c1', runId: 'r1', messageId: 'm2', name: 'run_command', args: {}, pending: false, ok: false, output: '', stopped: true, startedAt: '1', finishedAt: '2', durationMs: 1 }
  const answer: StoredMessage = { ...stored('m2', 'assistant', 'Let me run the tests.', true, 'stop'), toolCalls: [{ id: 't', name: 'run_command', args: {} }] }

  it('offers one Regenerate, the stopped notice’s, once reopened', async () => {
    const backend = new FakeBackend()
    backend.opened.c1 = { ...reopened(answer, { runId: 'r1' }, [call]), toolStates: { t: 'stopped' } }
    const { store } = renderWithStore(<ChatView />, backend)
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
    expect(regenerates().map((b) => b.getAttribute('aria-label'))).toEqual(['Regenerate the stopped answer'])
  })

  it('offers one Regenerate, the stopped notice’s, when stopped live', async () => {
    const backend = new FakeBackend()
    backend.opened.c1 = { ...reopened(answer, null, []), messages: [stored('m1', 'user', 'Write a long answer', true)] }
    const { store } = renderWithStore(<ChatView />, backend)
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
    act(() => {
      backend.emit([
        { type: 'run.started', runId: 'r1' },
        { type: 'phase', runId: 'r1', phase: 'streaming', busy: true },
        { type: 'message.started', runId: 'r1', messageId: 'm2', role: 'assistant' },
        { type: 'text.delta', runId: 'r1', messageId: 'm2', text: 'Let me run the tests.' },
        { type: 'message.completed', runId: 'r1', messageId: 'm2', doneReason: 'stop' },
        { type: 'tool.call', runId: 'r1', messageId: 'm2', toolCallId: 't', name: 'run_command', args: {} },
        { type: 'run.finished', runId: 'r1', stopReason: 'aborted' },
        { type: 'phase', runId: 'r1', phase: 'idle', busy: false },
      ])
    })
    await screen.findByText(stoppedText)
    expect(regenerates().map((b) => b.getAttribute('aria-label'))).toEqual(['Regenerate the stopped answer'])
  })

  it('keeps the answer’s own Regenerate once a later run answered', async () => {
    const backend = new FakeBackend()
    const o = reopened(answer, null, [call])
    backend.opened.c1 = { ...o, toolStates: { t: 'stopped' }, messages: [...(o.messages ?? []), stored('m3', 'user', 'Go on', true), { ...stored('m4', 'assistant', 'Done.', true, 'stop'), runId: 'r2' }] }
    const { store } = renderWithStore(<ChatView />, backend)
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
    expect(regenerates().map((b) => b.getAttribute('aria-label'))).toEqual(['Regenerate', 'Regenerate'])
  })
})

describe('an answer cut short, once a later run answered', () => {
  /** Chat c1 reopened: the answer run r1 left unfinished, then "Go on" and run r2's whole answer. */
  function later(stoppedRuns: OpenedChat['stoppedRuns']): OpenedChat {
    const o = reopened(stored('m2', 'assistant', 'Half an an', false, 'aborted'), null)
    const more = [stored('m3', 'user', 'Go on', true), { ...stored('m4', 'assistant', 'Done.', true, 'stop'), runId: 'r2' }]
    return { ...o, messages: [...(o.messages ?? []), ...more], stoppedRuns }
  }
  const under = (o: OpenedChat) => notices(o).map((n) => (n.kind === 'notice' ? n.text : ''))

  it('says the user stopped it, as it said when they did', () => {
    expect(under(later([{ runId: 'r1' }]))).toEqual([stoppedText])
  })

  it('says the app cut it short where it quit or was killed', () => {
    expect(under(later([{ runId: 'r1', interrupted: true }]))).toEqual([cutShortText])
  })

  it('says only that it stopped before the end where its run failed (its note says why)', () => {
    expect(under(later(null))).toEqual([stoppedBeforeTheEnd])
  })

  it('offers no Continue or Regenerate under it: those are for the chat’s end', async () => {
    const backend = new FakeBackend()
    backend.opened.c1 = later([{ runId: 'r1' }])
    const { store } = renderWithStore(<ChatView />, backend)
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
    expect(screen.getByText(stoppedText)).toBeTruthy()
    expect(screen.queryByRole('button', { name: 'Continue the stopped answer' })).toBeNull()
    expect(screen.queryByRole('button', { name: 'Regenerate the stopped answer' })).toBeNull()
  })
})
