import { describe, expect, it, vi } from 'vitest'
import { act, fireEvent, screen } from '@testing-library/react'
import { App, windowTitle } from '../App'
import type { OpenedChat } from '../backend'
import { FakeBackend } from '../fakeBackend'
import { draftSaveMs } from '../state/store'
import { mountApp } from '../test/mountApp'
import { renderWithStore } from '../test/renderWithStore'

const chatB = { id: 'b', title: 'Snake game', model: 'qwen3:4b', workspace: '/home/me/two', createdAt: '2025-01-02T00:00:00Z', updatedAt: '2025-01-02T00:00:00Z', messageCount: 2, phase: 'idle' as const }
const chatA = { ...chatB, id: 'a', title: 'Landing page', workspace: '/home/me/one', updatedAt: '2025-01-01T00:00:00Z' }

function opened(id: string, versions: OpenedChat['versions'] = []): OpenedChat {
  const at = '2025-01-02T00:00:00Z'
  return {
    chat: id === 'b' ? chatB : chatA,
    messages: [
      { id: `${id}-m1`, chatId: id, role: 'user', content: 'make a snake', createdAt: at, updatedAt: at, complete: true },
      { id: `${id}-m2`, chatId: id, role: 'assistant', content: 'Made **snake.py**.', createdAt: at, updatedAt: at, complete: true },
    ],
    toolCalls: [],
    phase: 'idle',
    liveRunId: '',
    versions,
  }
}

const mount = (prepare: (b: FakeBackend) => void = () => {}) =>
  mountApp([chatA, chatB], (b) => {
    b.opened = { a: opened('a'), b: opened('b') }
    prepare(b)
  })

const key = (k: string, init: KeyboardEventInit = {}) =>
  act(async () => {
    fireEvent.keyDown(document.activeElement ?? document.body, { key: k, ...init })
  })
const flush = () => act(() => new Promise((r) => setTimeout(r, 5)))

describe('keyboard first', () => {
  it('Ctrl+N starts a new chat with the focus in the composer', async () => {
    const { store } = await mount()
    ;(screen.getByTestId('new-chat') as HTMLButtonElement).focus()
    await key('n', { ctrlKey: true })
    await flush()
    expect(store.getState().activeChatId).toBeNull()
    expect(document.activeElement).toBe(screen.getByTestId('composer'))
  })

  it('each chat keeps its own unsent text: Ctrl+N starts empty, and the chat left gets it back', async () => {
    const { store } = await mount()
    await act(() => store.selectChat('a'))
    const composer = () => screen.getByTestId('composer') as HTMLTextAreaElement
    fireEvent.change(composer(), { target: { value: 'hello' } })
    await key('n', { ctrlKey: true })
    await flush()
    expect(composer().value).toBe('')
    fireEvent.change(composer(), { target: { value: 'for the new one' } })
    await act(() => store.selectChat('b'))
    expect(composer().value).toBe('')
    await act(() => store.selectChat('a'))
    expect(composer().value).toBe('hello')
    await act(() => store.selectChat(null))
    expect(composer().value).toBe('for the new one')
  })

  it('the unsent text outlives the app: kept as the typing pauses, and at once on Ctrl+Q', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true })
    try {
      const { backend, store } = await mount((b) => {
        b.savedDrafts = { b: 'a thought for later', a: 'half a sentence' }
      })
      const composer = () => screen.getByTestId('composer') as HTMLTextAreaElement
      expect(store.getState().activeChatId).toBe('b') // the newest, opened at start, with its text
      expect(composer().value).toBe('a thought for later')
      await act(() => store.selectChat('a'))
      expect(composer().value).toBe('half a sentence')
      expect(backend.callsOf('SaveDraft')).toEqual([]) // nothing typed: nothing to keep
      fireEvent.change(composer(), { target: { value: 'half a sentence, and more' } })
      await act(() => vi.advanceTimersByTimeAsync(draftSaveMs + 50))
      expect(backend.savedDrafts.a).toBe('half a sentence, and more')
      fireEvent.change(composer(), { target: { value: '' } }) // emptied: forgotten at once
      await flush()
      expect(backend.savedDrafts.a).toBeUndefined()
      fireEvent.change(composer(), { target: { value: 'typed just before quitting' } })
      const quit = vi.spyOn(backend, 'quit')
      await key('q', { ctrlKey: true })
      await flush()
      expect(backend.savedDrafts.a).toBe('typed just before quitting')
      expect(quit).toHaveBeenCalled()
    } finally {
      vi.useRealTimers()
    }
  })

  it('the box’s images outlive the app, each with its chat', async () => {
    const { backend, store } = await mount((b) => {
      b.savedDraftImages = { a: ['iVBORw0KGgo='] }
      b.savedDrafts = { a: 'look at this' }
    })
    const pictures = () => screen.queryAllByRole('img', { name: /Image \d+ to send/ })
    expect(pictures()).toHaveLength(0) // b, the newest, has none
    await act(() => store.selectChat('a'))
    expect(pictures()).toHaveLength(1)
    expect(backend.callsOf('SaveDraftImages')).toEqual([]) // nothing changed: nothing to keep
    fireEvent.click(screen.getByRole('button', { name: 'Remove image 1' }))
    await flush()
    expect(backend.savedDraftImages.a).toBeUndefined()
  })

  it('a message a Stop gives back lands in its own chat’s box, not in the box on screen', async () => {
    const { backend, store } = await mount()
    await act(() => store.selectChat('a'))
    act(() => void backend.emit([{ type: 'phase', chatId: 'a', runId: 'r1', phase: 'streaming', busy: true }]))
    await act(() => store.send('and this picture', ['iVBORw0KGgo=']))
    expect(store.getState().queued.a).toHaveLength(1)
    const composer = () => screen.getByTestId('composer') as HTMLTextAreaElement
    fireEvent.change(composer(), { target: { value: 'still typing' } })
    await act(() => store.selectChat('b')) // before the run's end arrives
    act(() => void backend.emit([{ type: 'run.finished', chatId: 'a', runId: 'r1', stopReason: 'aborted' }]))
    await flush()
    const pictures = () => screen.queryAllByRole('img', { name: /Image \d+ to send/ })
    expect(composer().value).toBe('')
    expect(pictures()).toHaveLength(0)
    expect(backend.savedDraftImages.b).toBeUndefined()
    await act(() => store.selectChat('a'))
    await flush()
    expect(composer().value).toBe('still typing\n\nand this picture')
    expect(pictures()).toHaveLength(1)
    expect(backend.savedDraftImages.a).toEqual(['iVBORw0KGgo='])
  })

  it('the app opened again shows the chat it showed last, else the newest', async () => {
    const { backend, store } = await mount()
    expect(store.getState().activeChatId).toBe('b') // the newest: none was remembered
    await act(() => store.selectChat('a'))
    expect(backend.lastOpen).toBe('a')
    const again = await mount((b) => {
      b.lastOpen = 'a'
    })
    expect(again.store.getState().activeChatId).toBe('a')
  })

  it('a new chat’s unsent text comes back in its box', async () => {
    await mountApp([], (b) => {
      b.savedDrafts = { '': 'the first words' }
    })
    expect((screen.getByTestId('composer') as HTMLTextAreaElement).value).toBe('the first words')
  })

  it('what is typed before the kept text is read stays as typed, and the kept text joins it once', async () => {
    for (const kept of [{}, { '': 'the first words' }] as Record<string, string>[]) {
      const backend = new FakeBackend()
      backend.savedDrafts = { ...kept }
      let read!: () => void
      const reading = new Promise<void>((r) => (read = r))
      const drafts = backend.drafts.bind(backend)
      backend.drafts = async () => {
        const d = await drafts()
        await reading
        return d
      }
      const { store, unmount } = renderWithStore(<App />, backend)
      const started = store.start()
      const composer = await screen.findByTestId('composer')
      // a quick typist: the first letter lands (and is reported) before the kept text is read
      fireEvent.change(composer, { target: { value: 'W' } })
      read()
      await act(() => started)
      expect((composer as HTMLTextAreaElement).value).toBe('' in kept ? 'W\n\nthe first words' : 'W')
      unmount()
    }
  })

  it('typing in the new chat’s box before the window has opened the last chat keeps the window there, with the kept text', async () => {
    const backend = new FakeBackend()
    backend.chats = [chatA]
    backend.opened = { a: opened('a') }
    backend.lastOpen = 'a'
    backend.savedDrafts = { '': 'the first words' }
    let read!: () => void
    const reading = new Promise<void>((r) => (read = r))
    const lastOpenChat = backend.lastOpenChat.bind(backend)
    backend.lastOpenChat = async () => {
      await reading
      return lastOpenChat()
    }
    const { store, unmount } = renderWithStore(<App />, backend)
    const started = store.start()
    const composer = (await screen.findByTestId('composer')) as HTMLTextAreaElement
    fireEvent.change(composer, { target: { value: 'W' } })
    read()
    await act(() => started)
    expect(store.getState().activeChatId).toBeNull()
    expect(composer.value).toBe('W\n\nthe first words')
    await act(() => store.flushDrafts())
    expect(backend.savedDrafts['']).toBe('W\n\nthe first words')
    unmount()
  })

  it('a new chat left with unsent text is the chat the window opens again, with its text', async () => {
    const { store } = await mountApp([chatA], (b) => {
      b.opened = { a: opened('a') }
      b.lastOpen = ''
      b.savedDrafts = { '': 'Draft in new chat' }
    })
    expect(store.getState().activeChatId).toBeNull()
    expect((screen.getByTestId('composer') as HTMLTextAreaElement).value).toBe('Draft in new chat')
  })

  it('with no chat remembered and nothing unsent, the window opens the newest chat', async () => {
    const { store } = await mountApp([chatB, chatA], (b) => {
      b.opened = { a: opened('a'), b: opened('b') }
    })
    expect(store.getState().activeChatId).toBe('b')
  })

  it('a new chat’s unsent images come back in its box', async () => {
    const { backend } = await mountApp([], (b) => {
      b.savedDraftImages = { '': ['iVBORw0KGgo='] }
    })
    expect(screen.getAllByRole('img', { name: 'Image 1 to send' })).toHaveLength(1)
    expect(backend.callsOf('SaveDraftImages')).toEqual([]) // given back as kept: nothing to keep again
  })

  it('the New chat button gives the focus to the composer, and says its shortcut', async () => {
    await mount()
    const button = screen.getByTestId('new-chat')
    expect(button.getAttribute('title')).toContain('Ctrl+N')
    button.focus()
    fireEvent.click(button)
    await flush()
    expect(document.activeElement).toBe(screen.getByTestId('composer'))
  })

  it('Ctrl+K searches the chats; Enter opens the one found', async () => {
    const { backend, store } = await mount()
    await key('k', { ctrlKey: true })
    const field = screen.getByRole('combobox', { name: 'Search chats' })
    expect(document.activeElement).toBe(field)
    fireEvent.change(field, { target: { value: 'landing' } })
    await act(() => new Promise((r) => setTimeout(r, 200)))
    expect(backend.callsOf('SearchChats')).toEqual([['landing']])
    expect(screen.getAllByTestId('search-hit').map((h) => h.textContent)).toEqual([expect.stringContaining('Landing page')])
    await key('Enter')
    await flush()
    expect(store.getState().activeChatId).toBe('a')
    expect(screen.queryByTestId('search-dialog')).toBeNull()
    expect(document.activeElement).toBe(screen.getByTestId('composer'))
  })

  it('Ctrl+K with nothing typed lists the newest chats but the one open; ↓ and Enter open one', async () => {
    const chatC = { ...chatA, id: 'c', title: 'Todo app', updatedAt: '2024-12-31T00:00:00Z' }
    const { backend, store } = await mountApp([chatA, chatB, chatC], (b) => {
      b.opened = { a: opened('a'), b: opened('b'), c: { ...opened('a'), chat: chatC } }
    })
    expect(store.getState().activeChatId).toBe('b')
    await key('k', { ctrlKey: true })
    expect(screen.getByRole('listbox', { name: 'Recent chats' })).toBeTruthy()
    expect(screen.getAllByTestId('search-hit').map((h) => h.textContent)).toEqual([expect.stringContaining('Landing page'), expect.stringContaining('Todo app')])
    await key('ArrowDown')
    await key('Enter')
    await flush()
    expect(store.getState().activeChatId).toBe('c')
    expect(screen.queryByTestId('search-dialog')).toBeNull()
    expect(backend.callsOf('SearchChats')).toEqual([])
  })

  it('Ctrl+K keeps the recent chats in the order shown: a run ending elsewhere does not move another chat under the highlight', async () => {
    const chatC = { ...chatA, id: 'c', title: 'Todo app', updatedAt: '2024-12-31T00:00:00Z' }
    const { backend, store } = await mountApp([chatA, chatB, chatC], (b) => {
      b.opened = { a: opened('a'), b: opened('b'), c: { ...opened('a'), chat: chatC } }
    })
    await key('k', { ctrlKey: true })
    await key('ArrowDown')
    expect(screen.getByRole('option', { selected: true }).textContent).toContain('Todo app')
    // the run of Todo app ends: the chat list comes back with it the newest
    backend.chats = [chatA, chatB, { ...chatC, updatedAt: '2025-02-01T00:00:00Z' }]
    await act(() => store.refreshChats())
    expect(screen.getByRole('option', { selected: true }).textContent).toContain('Todo app')
    await key('Enter')
    await flush()
    expect(store.getState().activeChatId).toBe('c')
  })

  it('Ctrl+K with the only chat open says there is no other chat, not that there are none', async () => {
    await mountApp([chatB], (b) => {
      b.opened = { b: opened('b') }
    })
    await key('k', { ctrlKey: true })
    expect(screen.getByTestId('search-dialog').textContent).toContain('No other chats.')
    expect(screen.getByTestId('search-dialog').textContent).not.toContain('No chats yet.')
  })

  it('a search shows where the words were said', async () => {
    await mount((b) => {
      b.hits = [{ chat: chatB, messageId: 'b-m2', snippet: '…the snake moves left…' }]
    })
    await key('k', { ctrlKey: true })
    fireEvent.change(screen.getByRole('combobox', { name: 'Search chats' }), { target: { value: 'moves' } })
    await act(() => new Promise((r) => setTimeout(r, 200)))
    expect(screen.getByTestId('search-hit').textContent).toContain('the snake moves left')
  })

  it('a chat found by what was said in it opens at that message', async () => {
    const { store } = await mount((b) => {
      b.hits = [{ chat: chatA, messageId: 'a-m2', snippet: 'Made **snake.py**.' }]
    })
    const scrolled: string[] = []
    Element.prototype.scrollIntoView = function (this: Element) {
      scrolled.push(this.getAttribute('data-message-id') ?? '')
    }
    await key('k', { ctrlKey: true })
    fireEvent.change(screen.getByRole('combobox', { name: 'Search chats' }), { target: { value: 'snake.py' } })
    await act(() => new Promise((r) => setTimeout(r, 200)))
    await key('Enter')
    await act(() => new Promise((r) => setTimeout(r, 100)))
    expect(store.getState().activeChatId).toBe('a')
    expect(scrolled).toContain('a-m2')
  })

  it('Esc closes the search, the help, the settings and a menu, and stops the run only when none is open', async () => {
    const { backend, store, emit } = await mount()
    emit([{ chatId: 'b', type: 'phase', phase: 'streaming', busy: true, runId: 'r1' }])
    for (const open of [
      () => key('k', { ctrlKey: true }),
      () => key(',', { ctrlKey: true }),
      () => key('/', { ctrlKey: true }),
      () => key('m', { ctrlKey: true }),
      () => key('o', { ctrlKey: true }),
    ]) {
      await open()
      expect(screen.queryByRole('dialog') ?? screen.queryByRole('combobox')).not.toBeNull()
      await key('Escape')
      expect(screen.queryByRole('dialog')).toBeNull()
      expect(screen.queryByRole('combobox')).toBeNull()
      expect(backend.callsOf('Stop')).toEqual([])
    }
    ;(document.activeElement as HTMLElement | null)?.blur()
    await key('Escape')
    expect(backend.callsOf('Stop')).toEqual([['b']])
    expect(store.getState().activeChatId).toBe('b')
  })

  it('Esc gives the focus back to the composer a menu was opened from with its shortcut', async () => {
    await mount()
    for (const shortcut of ['m', 'o']) {
      const composer = screen.getByTestId('composer')
      composer.focus()
      await key(shortcut, { ctrlKey: true })
      expect(screen.queryByRole('combobox')).not.toBeNull()
      await key('Escape')
      expect(document.activeElement).toBe(composer)
    }
  })

  it('Ctrl+Q quits, as closing the window does', async () => {
    const { backend } = await mount()
    await key('q', { ctrlKey: true })
    expect(backend.callsOf('Quit')).toEqual([[]])
  })

  it('? outside a text field and Ctrl+/ list the shortcuts', async () => {
    await mount()
    ;(document.activeElement as HTMLElement | null)?.blur()
    await key('?')
    const help = screen.getByTestId('help-overlay')
    for (const k of ['Ctrl+N', 'Ctrl+K', 'Ctrl+,', 'Alt+A', 'Esc', 'Ctrl+Q']) expect(help.textContent).toContain(k)
    await key('Escape')
    expect(screen.queryByTestId('help-overlay')).toBeNull()
    // typed into the composer, ? is a question mark
    const composer = screen.getByTestId('composer')
    composer.focus()
    await key('?')
    expect(screen.queryByTestId('help-overlay')).toBeNull()
  })

  it('Ctrl+, opens the settings, and the settings button shows its shortcut', async () => {
    await mount()
    expect(screen.getByRole('button', { name: 'Settings' }).getAttribute('title')).toContain('Ctrl+,')
    await key(',', { ctrlKey: true })
    expect(screen.getByRole('dialog', { name: 'Settings' })).toBeTruthy()
  })

  it('after a decision the focus goes on to the composer, not to nowhere', async () => {
    const { backend, emitPainted } = await mount()
    emitPainted([
      { chatId: 'b', type: 'phase', phase: 'awaiting_approval', runId: 'r1' },
      { chatId: 'b', type: 'tool.call', toolCallId: 't1', name: 'write_file', args: { path: 'a.txt' }, state: 'awaiting_approval', runId: 'r1', messageId: 'm1' },
      { chatId: 'b', type: 'tool.approval_requested', toolCallId: 't1', name: 'write_file', runId: 'r1', messageId: 'm1' },
    ])
    const approve = screen.getByRole('button', { name: /Approve/ })
    approve.focus()
    await act(async () => fireEvent.click(approve))
    await flush()
    expect(backend.callsOf('Decide')).toEqual([['t1', 'allow', '']])
    expect(document.activeElement).toBe(screen.getByTestId('composer'))
  })

  it('the composer grows with its text', async () => {
    await mount()
    const box = screen.getByTestId('composer') as HTMLTextAreaElement
    Object.defineProperty(box, 'scrollHeight', { configurable: true, get: () => 20 * box.value.split('\n').length })
    fireEvent.change(box, { target: { value: 'one' } })
    const small = parseInt(box.style.height)
    fireEvent.change(box, { target: { value: 'one\ntwo\nthree\nfour' } })
    expect(parseInt(box.style.height)).toBeGreaterThan(small)
  })
})

describe('edit, resend, regenerate, copy', () => {
  it('↑ in the empty composer edits the last message sent; Enter resends it', async () => {
    const { backend, store } = await mount()
    screen.getByTestId('composer').focus()
    await key('ArrowUp')
    const box = screen.getByRole('textbox', { name: 'Edit the message' }) as HTMLTextAreaElement
    expect(document.activeElement).toBe(box)
    expect(box.value).toBe('make a snake')
    fireEvent.change(box, { target: { value: 'make a faster snake' } })
    backend.opened.b = {
      ...opened('b', [{ messageId: 'b-m3', index: 2, count: 2 }]),
      messages: [{ id: 'b-m3', chatId: 'b', role: 'user', content: 'make a faster snake', createdAt: '', updatedAt: '', complete: true }],
    }
    await key('Enter')
    await flush()
    expect(backend.callsOf('EditAndResend')).toEqual([['b', 'b-m1', 'make a faster snake']])
    const users = screen.getAllByTestId('message-user').map((m) => m.textContent)
    expect(users).toEqual(['make a faster snake'])
    expect(screen.queryByText('Made')).toBeNull()
    expect(screen.getByTestId('version-nav').textContent).toContain('2/2')
    expect(store.getState().editing).toBe('')
  })

  it('Esc leaves the message as it was', async () => {
    const { backend } = await mount()
    screen.getByTestId('composer').focus()
    await key('ArrowUp')
    await key('Escape')
    expect(screen.queryByRole('textbox', { name: 'Edit the message' })).toBeNull()
    expect(backend.callsOf('EditAndResend')).toEqual([])
    expect(backend.callsOf('Stop')).toEqual([])
  })

  it('‹ shows the earlier version', async () => {
    const { backend } = await mount((b) => {
      b.opened.b = opened('b', [{ messageId: 'b-m1', index: 2, count: 2 }])
    })
    expect(screen.getByTestId('version-index').textContent).toBe('2/2')
    backend.opened.b = opened('b', [{ messageId: 'b-m1', index: 1, count: 2 }])
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Earlier version' })))
    expect(backend.callsOf('ShowVersion')).toEqual([['b', 'b-m1', 1]])
    expect(screen.getByTestId('version-index').textContent).toBe('1/2')
  })

  it('Regenerate sends the question of the answer again', async () => {
    const { backend } = await mount()
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Regenerate' })))
    expect(backend.callsOf('EditAndResend')).toEqual([['b', 'b-m1', 'make a snake']])
  })

  it('Copy puts a message on the clipboard as Markdown', async () => {
    const writeText = vi.fn(async () => {})
    Object.defineProperty(navigator, 'clipboard', { configurable: true, value: { writeText } })
    await mount()
    const copies = screen.getAllByRole('button', { name: 'Copy as Markdown' })
    await act(async () => fireEvent.click(copies[1]))
    expect(writeText).toHaveBeenCalledWith('Made **snake.py**.')
    expect(screen.getByRole('button', { name: 'Copied' })).toBeTruthy()
  })
})

describe('states a user sees', () => {
  it('a background chat waiting for approval is marked, and the title counts the chats that wait', async () => {
    const { backend, emit } = await mount()
    expect(backend.title).toBe('Prototyper')
    emit([{ chatId: 'a', type: 'phase', phase: 'awaiting_approval', runId: 'r1' }])
    const marked = screen.getAllByTestId('chat-item').filter((i) => i.querySelector('[data-testid="waiting-mark"]'))
    expect(marked.map((i) => i.getAttribute('data-chat-id'))).toEqual(['a'])
    expect(backend.title).toBe('Prototyper — 1 chat waits for approval')
    expect(windowTitle(['awaiting_approval', 'awaiting_approval'])).toBe('Prototyper — 2 chats wait for approval')
  })

  it('a background chat waiting for the answer to a summary offer is marked and counted too', async () => {
    const { backend, emit } = await mount()
    emit([{ chatId: 'a', type: 'phase', phase: 'awaiting_summary', runId: 'r1' }])
    const marked = screen.getAllByTestId('chat-item').filter((i) => i.querySelector('[data-testid="waiting-mark"]'))
    expect(marked.map((i) => i.getAttribute('data-chat-id'))).toEqual(['a'])
    expect(backend.title).toBe('Prototyper — 1 chat waits for your answer')
    expect(windowTitle(['awaiting_summary', 'awaiting_approval'])).toBe('Prototyper — 2 chats wait for you')
  })
})
