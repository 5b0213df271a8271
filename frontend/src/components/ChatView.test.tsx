import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen } from '@testing-library/react'
import { FakeBackend } from '../fakeBackend'
import type { ChatNote } from '../backend'
import { emptyAnswerCode, emptyChat, newCard, newMessage, type ChatState, type MessageView, type ToolCard } from '../state/chatReducer'
import { ChatView, followStart, mountedChars } from './ChatView'
import { renderWithStore } from '../test/renderWithStore'

function message(id: string, chars: number, complete = true): MessageView {
  const content = `${id} ${'x'.repeat(Math.max(0, chars - id.length - 1))}`
  return { ...newMessage(id, 'assistant', 'r1'), content, complete, doneReason: 'stop' }
}

/** A stored message of chat c1's run r1, written at second `i`. */
function stored(id: string, role: 'user' | 'assistant', content: string, i: number) {
  return {
    id,
    chatId: 'c1',
    role,
    content,
    thinking: '',
    thinkingMs: 0,
    toolCalls: null,
    toolName: '',
    toolCallId: '',
    runId: 'r1',
    createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
    updatedAt: '',
    complete: true,
    doneReason: 'stop',
  }
}

/** Opens chat c1: a question, then the empty answers `answers` (ids), with what its run said. */
async function openEmptyAnswers(answers: string[], notes: ChatNote[] = []) {
  const backend = new FakeBackend()
  backend.opened.c1 = {
    chat: { id: 'c1', title: 'Empty', model: 'qwen3:4b', workspace: '/w', createdAt: '', updatedAt: '', messageCount: answers.length + 1, phase: 'idle' },
    messages: [stored('u1', 'user', 'Say something', 0), ...answers.map((id, i) => stored(id, 'assistant', '', i + 1))],
    toolCalls: [],
    phase: 'idle',
    liveRunId: '',
    emptyAnswers: answers,
    notes,
  }
  const { store } = renderWithStore(<ChatView />, backend)
  await act(() => store.start())
  await act(() => store.selectChat('c1'))
}

/** A chat of `n` assistant messages of `chars` characters each. */
function longChat(n: number, chars: number): ChatState {
  const s = emptyChat('c1')
  for (let i = 0; i < n; i++) {
    const m = message(`m${i}`, chars)
    s.messages[m.id] = m
    s.timeline.push({ kind: 'message', id: m.id })
  }
  return { ...s, loaded: true }
}

function runningCard(id: string): ToolCard {
  return { ...newCard(id, 'm0', 'r1'), name: 'write_file', args: { path: 'a.txt' }, state: 'running' }
}

describe('followStart', () => {
  it('keeps the newest entries that fit the character budget', () => {
    const chat = longChat(30, 5000)
    expect(followStart(chat)).toEqual({ entry: 30 - mountedChars / 5000, from: 0 })
  })

  it('keeps only the end of the oldest answer that does not fit whole', () => {
    const chat = longChat(30, 15000)
    // Two answers fit whole; of the third only its last 10,000 characters.
    expect(followStart(chat)).toEqual({ entry: 27, from: 5000 })
    const one = longChat(30, 100_000)
    expect(followStart(one)).toEqual({ entry: 29, from: 100_000 - mountedChars })
  })

  it('shows a short chat whole', () => {
    expect(followStart(longChat(3, 100))).toEqual({ entry: 0, from: 0 })
  })

  it('never leaves out a message still streaming or a card still running', () => {
    const streaming = longChat(30, 5000)
    streaming.messages.m3 = { ...streaming.messages.m3, complete: false }
    expect(followStart(streaming)).toEqual({ entry: 3, from: 0 })

    const running = longChat(30, 5000)
    running.tools.t1 = runningCard('t1')
    running.timeline.splice(2, 0, { kind: 'tool', id: 't1' })
    expect(followStart(running)).toEqual({ entry: 2, from: 0 })
  })
})

describe('ChatView', () => {
  // A stored chat of `n` answers of `chars` characters, opened in the view.
  async function mount(n: number, chars: number, lastComplete = true, content?: (i: number) => string) {
    const backend = new FakeBackend()
    const long = longChat(n, chars)
    if (content) long.timeline.forEach((e, i) => (long.messages[e.id].content = content(i)))
    backend.opened.c1 = {
      chat: { id: 'c1', title: 'Long', model: 'qwen3:4b', workspace: '/w', createdAt: '', updatedAt: '', messageCount: n, phase: 'idle' },
      messages: long.timeline.map((e, i) => ({
        id: e.id,
        chatId: 'c1',
        role: 'assistant' as const,
        content: long.messages[e.id].content,
        thinking: '',
        thinkingMs: 0,
        toolCalls: null,
        toolName: '',
        toolCallId: '',
        createdAt: new Date(Date.UTC(2025, 0, 1, 0, 0, i)).toISOString(),
        updatedAt: '',
        complete: lastComplete || i < n - 1,
        doneReason: lastComplete || i < n - 1 ? 'stop' : '',
      })),
      toolCalls: [],
      phase: 'idle',
      liveRunId: '',
    }
    const { store } = renderWithStore(<ChatView />, backend)
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
  }

  it('mounts only the end of a long chat and shows earlier entries on request', async () => {
    await mount(40, 5000)
    const shown = () => screen.getAllByTestId('message-assistant').map((e) => e.dataset.messageId)
    expect(shown()).toHaveLength(8)
    expect(shown()[7]).toBe('m39')
    const earlier = screen.getByTestId('show-earlier')
    expect(earlier.textContent).toContain('32')
    fireEvent.click(earlier)
    expect(shown()).toHaveLength(28)
    expect(shown()[0]).toBe('m12')
    fireEvent.click(screen.getByTestId('show-earlier'))
    expect(shown()).toHaveLength(40)
    expect(screen.queryByTestId('show-earlier')).toBeNull()
  })

  it('says an answer was empty once when the model, asked again, answered nothing again', async () => {
    await openEmptyAnswers(['a1', 'a2'])
    expect(screen.getAllByTestId('message-assistant')).toHaveLength(2)
    expect(screen.getAllByTestId('empty-answer')).toHaveLength(1)
  })

  it('knows the sentence that ended the run on an empty answer by its code, whatever its words', async () => {
    const said = 'Nothing came back, also when asked again.'
    await openEmptyAnswers(['a1'], [{ runId: 'r1', stopReason: 'completed', code: emptyAnswerCode, message: said }])
    expect(screen.getByTestId('notice').textContent).toBe(said)
    expect(screen.queryAllByTestId('empty-answer')).toHaveLength(0)
  })

  it('shows a short chat whole, without the button', async () => {
    await mount(4, 200)
    expect(screen.getAllByTestId('message-assistant')).toHaveLength(4)
    expect(screen.queryByTestId('show-earlier')).toBeNull()
  })

  it('says under a partial answer of a reopened chat that it stopped before the end', async () => {
    await mount(3, 200, false)
    const answers = screen.getAllByTestId('message-assistant')
    const note = screen.getByTestId('notice')
    expect(note.textContent).toBe('Stopped before the end.')
    // next after the answer (and its actions) comes the note
    let next = answers[2].nextElementSibling
    while (next?.getAttribute('data-testid') === 'message-actions') next = next.nextElementSibling
    expect(next).toBe(note)
    expect(answers[2].textContent).toContain('m2 xxx')
  })

  it('shows only the last blocks of an answer too long for the page, and all of it on request', async () => {
    // One answer of 100 paragraphs of about 1,000 characters.
    const paragraph = (i: number) => `Paragraph ${i} ${'y'.repeat(1000)}`
    await mount(1, 0, true, () => Array.from({ length: 100 }, (_, i) => paragraph(i)).join('\n\n'))
    const blocks = () => Array.from(document.querySelectorAll('.md-block'), (b) => b.textContent ?? '')
    expect(blocks().length).toBeGreaterThanOrEqual(39)
    expect(blocks().length).toBeLessThanOrEqual(41)
    expect(blocks().at(-1)).toContain('Paragraph 99 ')
    expect(screen.getByTestId('show-earlier').textContent).toContain('1')
    fireEvent.click(screen.getByTestId('show-earlier'))
    expect(blocks()).toHaveLength(100)
    expect(blocks()[0]).toContain('Paragraph 0 ')
    expect(screen.queryByTestId('show-earlier')).toBeNull()
  })
})
