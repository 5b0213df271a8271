import { afterEach, describe, expect, it, vi } from 'vitest'
import { act, fireEvent, render, screen } from '@testing-library/react'
import { ReasoningBlock } from '../components/ReasoningBlock'
import type { FakeBackend } from '../fakeBackend'
import { mountApp } from '../test/mountApp'
import { errorSentence } from '../state/errorSentences'
import { ollamaPollFirstMs } from '../state/store'

const chat = { id: 'c1', title: 'Snake', model: 'qwen3:4b', workspace: '/w', createdAt: '2025-01-02T00:00:00Z', updatedAt: '2025-01-02T00:00:00Z', messageCount: 0, phase: 'idle' as const }

const mount = (prepare: (b: FakeBackend) => void = () => {}) => mountApp([chat], prepare)

/** The chat c1 as the store gives it: "make a snake", sent in run r1, and nothing after it. */
const openWithAMessage = (b: FakeBackend) => {
  b.opened.c1 = {
    chat,
    messages: [{ id: 'c1-m1', chatId: 'c1', role: 'user', content: 'make a snake', createdAt: '', updatedAt: '', complete: true, runId: 'r1' }],
    toolCalls: [],
    phase: 'idle',
    liveRunId: '',
  }
}

/** The window with the chat running and "also add a score" sent meanwhile (queued). */
async function mountWithAQueuedMessage() {
  const mounted = await mount()
  mounted.emit([{ type: 'phase', runId: 'r1', phase: 'streaming', busy: true }])
  await act(() => mounted.store.send('also add a score'))
  return mounted
}

afterEach(() => {
  vi.useRealTimers()
})

describe('states a user sees', () => {
  it('live thinking says how long it has thought, and follows its newest line', () => {
    const since = Date.now() - 7000
    const { rerender } = render(<ReasoningBlock text="one" ms={null} live since={since} />)
    expect(screen.getByTestId('thinking-seconds').textContent).toContain('7 s')
    const box = screen.getByTestId('reasoning-text')
    Object.defineProperty(box, 'scrollHeight', { configurable: true, get: () => 900 })
    rerender(<ReasoningBlock text={'one\ntwo\nthree'} ms={null} live since={since} />)
    expect(box.scrollTop).toBe(900)
  })

  it('a retry notice goes once the answer starts', async () => {
    const { emit, emitPainted } = await mount()
    emit([{ type: 'retry', runId: 'r1', attempt: 2, delayMs: 1400, reason: 'connection refused' }])
    expect(screen.getByTestId('notice').textContent).toContain('trying again in 1.4 s (attempt 2)')
    emitPainted([{ type: 'message.started', runId: 'r1', messageId: 'm1', role: 'assistant' }])
    expect(screen.queryByTestId('notice')).toBeNull()
  })

  it('an error says in a sentence what happened, with Retry and Settings', async () => {
    const { backend, emitPainted } = await mount(openWithAMessage)
    emitPainted([
      { type: 'error', runId: 'r1', code: 'first_byte_timeout', message: 'first byte: context deadline exceeded' },
      { type: 'run.finished', runId: 'r1', stopReason: 'error' },
    ])
    const notice = screen.getAllByTestId('notice').find((n) => n.dataset.code === 'first_byte_timeout')!
    expect(notice.textContent).toContain('did not start answering in time')
    expect(notice.textContent).not.toContain('deadline')
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Retry' })))
    expect(backend.callsOf('EditAndResend')).toEqual([['c1', 'c1-m1', 'make a snake']])
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Settings' })))
    expect(screen.getByRole('dialog', { name: 'Settings' })).toBeTruthy()
  })

  it('every error code the Go side sends has words of its own, and an unknown one keeps its sentence', () => {
    for (const code of ['not_running', 'network', 'model_not_found', 'capability_missing', 'busy', 'stream_error', 'incomplete_stream', 'malformed_line', 'line_too_long', 'first_byte_timeout', 'idle_timeout', 'answer_too_long', 'not_ollama']) {
      const s = errorSentence(code, 'x')
      expect(s.text).not.toBe('x')
      expect(s.text).not.toMatch(/OLLAMA_HOST|--ollama|done:true|EOF/)
      expect(s.actions.length).toBeGreaterThan(0)
    }
    expect(errorSentence('http_error', 'Ollama refused: 500.').text).toBe('Ollama refused: 500.')
  })

  it('a sentence the run says without failing keeps its words and offers no Retry', () => {
    const said = 'AGENTS.md was not read, so the model runs without it: it is a binary file, not text; write the instructions as plain text'
    expect(errorSentence('instructions_refused', said)).toEqual({ text: said, actions: [] })
    const switched = "e2e-unreadable-caller's tool calls came back unreadable, so Prototyper now asks it to write each call as text, for this model from now on."
    expect(errorSentence('calls_written', switched)).toEqual({ text: switched, actions: [] })
  })

  it('with an OpenAI-compatible server the sentences name the model server, not Ollama', () => {
    for (const code of ['not_running', 'network', 'model_not_found', 'busy', 'stream_error', 'incomplete_stream', 'malformed_line', 'line_too_long']) {
      const s = errorSentence(code, 'x', 'openai')
      expect(s.text).toMatch(/model server/)
      expect(s.text).not.toMatch(/Ollama|Pull it/)
      expect(s.actions).toEqual(errorSentence(code, 'x').actions)
    }
  })

  it('Ollama gone: the panel shows at once and goes by itself when Ollama is back; the message it left unanswered says so, with Retry', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    const { backend, emitPainted } = await mount(openWithAMessage)
    emitPainted([
      { type: 'error', runId: 'r1', code: 'not_running', message: 'connection refused' },
      { type: 'run.finished', runId: 'r1', stopReason: 'error' },
    ])
    // the panel shows at once (the composer says why it cannot send), without waiting for a check
    expect(screen.getByTestId('composer-disabled-reason').textContent).toMatch(/not running/)
    expect(screen.getByTestId('ollama-down')).toBeTruthy()
    backend.status = { ...backend.status, running: false }
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ollamaPollFirstMs + 10)
    })
    const asked = backend.callsOf('OllamaStatus').length
    backend.status = { ...backend.status, running: true }
    await act(async () => {
      await vi.advanceTimersByTimeAsync(ollamaPollFirstMs * 2 + 10)
    })
    expect(backend.callsOf('OllamaStatus').length).toBeGreaterThan(asked)
    expect(screen.queryByTestId('ollama-down')).toBeNull()
    expect(screen.getByTestId('messages')).toBeTruthy()
    // "not running" is stale now, but the message is still unanswered: the chat says so
    const notices = screen.getAllByTestId('notice')
    expect(notices.map((n) => n.dataset.code)).toEqual(['not_answered'])
    expect(notices[0].textContent).toContain('This message was not answered')
    expect(notices[0].textContent).not.toMatch(/not running/)
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Retry' })))
    expect(backend.callsOf('EditAndResend')).toEqual([['c1', 'c1-m1', 'make a snake']])
  })

  it('reopened, a chat whose message was not answered because Ollama was away says so, with Retry', async () => {
    const { backend } = await mount((b) => {
      openWithAMessage(b)
      b.opened.c1!.notes = [{ runId: 'r1', stopReason: 'error', code: 'not_running', message: 'Ollama is not running at http://127.0.0.1:11434' }]
    })
    const notice = screen.getByTestId('notice')
    expect(notice.dataset.code).toBe('not_answered')
    expect(notice.textContent).toContain('This message was not answered')
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Retry' })))
    expect(backend.callsOf('EditAndResend')).toEqual([['c1', 'c1-m1', 'make a snake']])
  })

  it('reopened, a chat says the error that failed a run, after what the run said', async () => {
    await mount((b) => {
      openWithAMessage(b)
      b.opened.c1!.notes = [{ runId: 'r1', stopReason: 'error', code: 'stream_error', message: 'the model runner crashed' }]
    })
    const notice = screen.getByTestId('notice')
    expect(notice.dataset.code).toBe('stream_error')
    expect(notice.textContent).toContain('reported an error in the middle of the answer')
    expect(screen.getByRole('button', { name: 'Retry' })).toBeTruthy()
  })

  it('a message sent while the chat runs is shown queued, and can be changed or taken back', async () => {
    const { backend } = await mountWithAQueuedMessage()
    expect(screen.getByTestId('queued').textContent).toContain('Queued')
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Edit the queued message' })))
    const box = screen.getByRole('textbox', { name: 'Edit the message' })
    fireEvent.change(box, { target: { value: 'also add a high score' } })
    await act(async () => fireEvent.keyDown(box, { key: 'Enter' }))
    expect(backend.callsOf('EditQueued')).toEqual([['c1', 0, 'also add a high score']])
    expect(screen.getAllByTestId('message-user').map((m) => m.textContent)).toEqual(['also add a high score'])
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Take back the queued message' })))
    expect(backend.callsOf('EditQueued')[1]).toEqual(['c1', 0, ''])
    expect(screen.queryAllByTestId('message-user')).toEqual([])
  })

  it('a queued message stops being queued once the run takes it', async () => {
    const { emit } = await mountWithAQueuedMessage()
    emit([{ type: 'message.started', runId: 'r1', role: 'user', trigger: 'steering', messageId: 'c1-m9' }])
    expect(screen.queryByTestId('queued')).toBeNull()
  })

  it('a run stopped before it took a queued message gives its text back to the composer', async () => {
    const { emit } = await mountWithAQueuedMessage()
    emit([
      { type: 'phase', runId: 'r1', phase: 'idle' },
      { type: 'run.finished', runId: 'r1', stopReason: 'aborted' },
    ])
    expect(screen.queryByTestId('queued')).toBeNull()
    expect(screen.queryAllByTestId('message-user')).toEqual([])
    expect((screen.getByTestId('composer') as HTMLTextAreaElement).value).toBe('also add a score')
  })

  it('a message with images sent while the chat runs is queued with them, and a stop gives them back too', async () => {
    const mounted = await mount()
    act(() => {
      mounted.backend.emit([{ type: 'phase', runId: 'r1', phase: 'streaming', busy: true }])
    })
    await act(() => mounted.store.send('and this picture', ['iVBORw==']))
    expect(mounted.backend.callsOf('SendImages')).toEqual([['c1', 'and this picture', ['iVBORw==']]])
    expect(screen.getByTestId('queued').textContent).toContain('Queued')
    expect(screen.getByTestId('message-user').querySelectorAll('img')).toHaveLength(1)
    act(() => {
      mounted.backend.emit([
        { type: 'phase', runId: 'r1', phase: 'idle' },
        { type: 'run.finished', runId: 'r1', stopReason: 'aborted' },
      ])
    })
    expect((screen.getByTestId('composer') as HTMLTextAreaElement).value).toBe('and this picture')
    expect(screen.getByTestId('composer-images').querySelectorAll('img')).toHaveLength(1)
  })

  it('while the model loads the header says so, not "Sending…", and the loading note does not say it again', async () => {
    const { emit } = await mount()
    emit([
      { type: 'phase', runId: 'r1', phase: 'submitted', busy: true },
      { type: 'model.loading', runId: 'r1', model: 'qwen3:4b' },
    ])
    expect(screen.getByTestId('run-state').textContent).toContain('Loading qwen3:4b…')
    expect(screen.getByTestId('model-loading').textContent).toContain('Loading qwen3:4b…')
    // said by one status: a screen reader hears it once
    const saying = screen.getAllByRole('status').filter((s) => s.textContent?.includes('Loading qwen3:4b'))
    expect(saying).toEqual([screen.getByTestId('run-state')])
  })

  it('the run state is one status that stays: its text changes with the run, empty when idle', async () => {
    const { emit } = await mount()
    const status = screen.getByTestId('run-state')
    expect(status.getAttribute('role')).toBe('status')
    expect(status.textContent).toBe('')
    emit([{ type: 'phase', runId: 'r1', phase: 'submitted', busy: true }])
    expect(screen.getByTestId('run-state')).toBe(status)
    expect(status.textContent).toContain('Sending…')
    emit([{ type: 'phase', runId: 'r1', phase: 'idle' }])
    expect(screen.getByTestId('run-state')).toBe(status)
    expect(status.textContent).toBe('')
  })


  it('an empty answer says so', async () => {
    const { emitPainted } = await mount()
    emitPainted([
      { type: 'message.started', runId: 'r1', messageId: 'm1', role: 'assistant' },
      { type: 'message.completed', runId: 'r1', messageId: 'm1', doneReason: 'stop', empty: true, usage: { evalTokens: 1, tokensPerSec: 14092 } },
    ])
    expect(screen.getByTestId('empty-answer').textContent).toContain('empty answer')
  })
})
