import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { act, fireEvent, screen } from '@testing-library/react'
import { FakeBackend } from '../fakeBackend'
import type { ChatNote } from '../backend'
import { emptyAnswerCode, emptyChat, newCard, newMessage, type ChatState, type MessageView, type ToolCard } from '../state/chatReducer'
import { ChatView, followStart, mountedChars } from './ChatView'
import { renderWithStore } from '../test/renderWithStore'
import { revealMessage } from './transcriptReveal'
import { alwaysRendered, entryGap } from './transcriptWindow'

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

  it('keeps at most the newest alwaysRendered entries, however short', () => {
    expect(followStart(longChat(400, 10))).toEqual({ entry: 400 - alwaysRendered, from: 0 })
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

/** Where an entry is laid out in the timeline: after spacers and entries of 100 px, 10 px apart. */
function laidOutTop(entry: Element): number {
  let y = 0
  for (let n = entry.previousElementSibling; n; n = n.previousElementSibling) {
    y += (n.classList.contains('entries-spacer') ? parseFloat((n as HTMLElement).style.height) : 100) + entryGap
  }
  return y
}

describe('ChatView', () => {
  // A layout for the page, which jsdom has not: a view 600 px high over a long page, whose
  // entries are 100 px high.
  beforeEach(() => {
    const view = (el: HTMLElement, px: number) => (el.classList.contains('messages') ? px : 0)
    vi.spyOn(HTMLElement.prototype, 'clientHeight', 'get').mockImplementation(function (this: HTMLElement) {
      return view(this, 600)
    })
    vi.spyOn(HTMLElement.prototype, 'scrollHeight', 'get').mockImplementation(function (this: HTMLElement) {
      return view(this, 100_000)
    })
    vi.spyOn(HTMLElement.prototype, 'offsetHeight', 'get').mockImplementation(function (this: HTMLElement) {
      return this.classList.contains('entry') ? 100 : 0
    })
    // the view is at the top of the window; the timeline and its entries move up as it scrolls
    const rect = Element.prototype.getBoundingClientRect
    vi.spyOn(Element.prototype, 'getBoundingClientRect').mockImplementation(function (this: Element) {
      const scrolled = this.closest('.messages')?.scrollTop ?? 0
      let top = 0
      let height = 0
      if (this.classList.contains('messages')) height = 600
      else if (this.classList.contains('timeline')) top = -scrolled
      else if (this.classList.contains('entry')) [top, height] = [laidOutTop(this) - scrolled, 100]
      return { ...rect.call(this), top, y: top, bottom: top + height, height }
    })
    Element.prototype.scrollIntoView = function (this: Element) {
      const view = this.closest('.messages')
      if (view) view.scrollTop = laidOutTop(this.closest('.entry') ?? this)
    }
  })
  afterEach(() => vi.restoreAllMocks())
  const shown = () => screen.getAllByTestId('message-assistant').map((e) => e.dataset.messageId)

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

  it('renders the tail of a long chat, the entries before it out of view standing as a spacer', async () => {
    await mount(40, 5000)
    expect(shown()).toEqual(['m32', 'm33', 'm34', 'm35', 'm36', 'm37', 'm38', 'm39'])
    // scrolled up a little, above it
    const view = screen.getByTestId('messages')
    view.scrollTop = 50_000
    fireEvent.scroll(view)
    const spacer = document.querySelector<HTMLElement>('.entries-spacer')
    // the 32 entries before the tail, never rendered, as high as the rendered ones of as much
    // text, 10 px apart
    expect(spacer?.style.height).toBe(`${32 * (100 + entryGap) - entryGap}px`)
  })

  it('stays at its end when the message box beside it grows, and stays where the user scrolled to otherwise', async () => {
    const resized: (() => void)[] = []
    vi.stubGlobal(
      'ResizeObserver',
      class {
        constructor(private readonly f: () => void) {}
        observe() {
          resized.push(this.f)
        }
        disconnect() {}
      },
    )
    try {
      await mount(10, 200)
      const view = screen.getByTestId('messages')
      // the box grew by 200 px: the transcript is lower, its scroll position as it was, its last 200 px covered
      view.scrollTop = 100_000 - 600
      act(() => resized.forEach((f) => f()))
      expect(view.scrollTop).toBe(100_000)
      // scrolled up, it stays where the user is
      view.scrollTop = 50_000
      fireEvent.scroll(view)
      act(() => resized.forEach((f) => f()))
      expect(view.scrollTop).toBe(50_000)
    } finally {
      vi.unstubAllGlobals()
    }
  })

  it('renders the first entries, and not those between, when Home is pressed in the transcript', async () => {
    await mount(40, 5000)
    fireEvent.keyDown(screen.getByTestId('messages'), { key: 'Home' })
    expect(shown()[0]).toBe('m0')
    expect(shown()).not.toContain('m20')
    expect(shown()).toContain('m39')
  })

  it('brings a message far above the tail into the page when it is revealed, and marks it found', async () => {
    await mount(40, 5000)
    expect(shown()).not.toContain('m3')
    // scrolled to the entry's top, as laid out: spacers and entries of 100 px, 10 px apart
    const view = screen.getByTestId('messages')
    Element.prototype.scrollIntoView = function (this: Element) {
      let y = 0
      for (let n = this.previousElementSibling; n; n = n.previousElementSibling) {
        y += (n.classList.contains('entries-spacer') ? parseFloat((n as HTMLElement).style.height) : 100) + entryGap
      }
      view.scrollTop = y
    }
    act(() => void revealMessage('m3'))
    expect(shown()).toContain('m3')
    expect(document.querySelector('[data-message-id="m3"]')?.classList.contains('found')).toBe(true)
    expect(revealMessage('no-such-message')).toBe(false)
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

  it('shows a short chat whole', async () => {
    await mount(4, 200)
    expect(screen.getAllByTestId('message-assistant')).toHaveLength(4)
    expect(document.querySelector('.entries-spacer')).toBeNull()
  })

  it('says under a partial answer of a reopened chat that it stopped before the end', async () => {
    await mount(3, 200, false)
    const answers = screen.getAllByTestId('message-assistant')
    const note = screen.getByTestId('notice')
    expect(note.textContent).toBe('Stopped before the end.')
    // the entry after the answer's is the note's
    expect(answers[2].closest('.entry')?.nextElementSibling?.contains(note)).toBe(true)
    expect(answers[2].textContent).toContain('m2 xxx')
  })

  it('shows only the last blocks of an answer too long for the page, and all of it once scrolled up', async () => {
    // One answer of 100 paragraphs of about 1,000 characters.
    const paragraph = (i: number) => `Paragraph ${i} ${'y'.repeat(1000)}`
    await mount(1, 0, true, () => Array.from({ length: 100 }, (_, i) => paragraph(i)).join('\n\n'))
    const blocks = () => Array.from(document.querySelectorAll('.md-block'), (b) => b.textContent ?? '')
    expect(blocks().length).toBeGreaterThanOrEqual(39)
    expect(blocks().length).toBeLessThanOrEqual(41)
    expect(blocks().at(-1)).toContain('Paragraph 99 ')
    const view = screen.getByTestId('messages')
    view.scrollTop = 0
    fireEvent.scroll(view)
    expect(blocks()).toHaveLength(100)
    expect(blocks()[0]).toContain('Paragraph 0 ')
  })
})
