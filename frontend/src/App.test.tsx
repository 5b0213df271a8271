import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen, within } from '@testing-library/react'
import { App, modelVision } from './App'
import type { AppState } from './state/store'
import { FakeBackend } from './fakeBackend'
import { mountApp, summary } from './test/mountApp'
import { renderWithStore } from './test/renderWithStore'

const mount = (prepare: (b: FakeBackend) => void = () => {}) =>
  mountApp([summary('old', 'Older chat', '/w', '2025-01-01T00:00:00Z'), summary('c1', 'Newest chat', '/w', '2025-01-02T00:00:00Z')], prepare)

describe('App', () => {
  it('shows the chats newest first and a focused composer once configured', async () => {
    await mount()
    expect(screen.getByRole('navigation', { name: 'Chats' })).toBeTruthy()
    const titles = screen.getAllByTestId('chat-item').map((e) => e.textContent)
    expect(titles[0]).toContain('Newest chat')
    expect(titles[1]).toContain('Older chat')
    expect(document.activeElement).toBe(screen.getByTestId('composer'))
    // the newest chat is open: the header shows its folder, not the one new chats take
    expect(screen.getByTestId('workspace-button').textContent).toContain('w')
    expect(screen.getByTestId('workspace-button').textContent).not.toContain('project')
  })

  it('paints a fast tool call running in the DOM and acknowledges it before showing the result', async () => {
    const { backend, frames, store } = await mount()
    await act(() => store.selectChat('c1'))
    act(() => {
      backend.emit([
        { seq: 1, type: 'phase', phase: 'tools', busy: true, runId: 'r1' },
        { seq: 2, type: 'tool.call', toolCallId: 't1', name: 'write_file', args: { path: 'a.txt' }, state: 'running', runId: 'r1', messageId: 'm1' },
        { seq: 3, type: 'tool.result', toolCallId: 't1', ok: true, durationMs: 2, runId: 'r1', details: { path: 'a.txt', diff: '+hi' } },
        { seq: 4, type: 'phase', phase: 'idle', runId: 'r1' },
        { seq: 5, type: 'run.finished', stopReason: 'completed', runId: 'r1' },
      ])
    })
    const el = () => screen.getByTestId('tool-card')
    expect(el().dataset.toolState).toBe('running')
    act(() => frames.tick())
    expect(el().dataset.toolState).toBe('running')
    act(() => frames.tick())
    expect(backend.callsOf('Painted')[0]).toEqual([5, ['t1']])
    act(() => frames.drain())
    expect(el().dataset.toolState).toBe('completed')
  })

  it('shows the typing indicator only after sending, and Stop while busy', async () => {
    const { backend, store } = await mount()
    await act(() => store.selectChat('c1'))
    act(() => void backend.emit([{ seq: 1, type: 'phase', phase: 'submitted', busy: true }]))
    expect(screen.getByTestId('typing')).toBeTruthy()
    expect(screen.getByTestId('stop')).toBeTruthy()
    act(() => void backend.emit([{ seq: 2, type: 'phase', phase: 'streaming', busy: true }]))
    expect(screen.queryByTestId('typing')).toBeNull()
    fireEvent.click(screen.getByTestId('stop'))
    expect(backend.callsOf('Stop')).toEqual([['c1']])
    act(() => void backend.emit([{ seq: 3, type: 'phase', phase: 'idle' }]))
    expect(screen.queryByTestId('stop')).toBeNull()
  })

  it('says how long it has waited for Ollama to load the model, until the answer starts', async () => {
    const { backend, store } = await mount()
    await act(() => store.selectChat('c1'))
    act(() => void backend.emit([{ seq: 1, type: 'phase', phase: 'submitted', busy: true, runId: 'r1' }]))
    expect(screen.getByTestId('typing')).toBeTruthy()
    act(() => void backend.emit([{ seq: 2, type: 'model.loading', model: 'qwen3:4b', runId: 'r1' }]))
    expect(screen.getByTestId('model-loading').textContent).toMatch(/^ Loading qwen3:4b… 0s$/)
    expect(screen.queryByTestId('typing')).toBeNull()
    act(() => void backend.emit([{ seq: 3, type: 'model.loaded', model: 'qwen3:4b', loadMs: 5200, runId: 'r1' }]))
    expect(screen.queryByTestId('model-loading')).toBeNull()
    act(() => void backend.emit([{ seq: 4, type: 'model.loading', model: 'qwen3:4b', runId: 'r1' }]))
    act(() => void backend.emit([{ seq: 5, type: 'run.finished', stopReason: 'error', runId: 'r1' }]))
    expect(screen.queryByTestId('model-loading')).toBeNull()
  })

  it('never mixes the events of another chat into the open one', async () => {
    const { backend, frames, store } = await mount()
    await act(() => store.selectChat('c1'))
    act(() => {
      backend.emit([{ seq: 1, chatId: 'old', type: 'tool.call', toolCallId: 'x', state: 'running' }])
      frames.drain()
    })
    expect(screen.queryByTestId('tool-card')).toBeNull()
    await act(() => store.selectChat('old'))
    expect(screen.getByTestId('tool-card').dataset.toolCallId).toBe('x')
  })

  it('explains how to start Ollama when it is not running, and retries', async () => {
    const { backend } = await mount((b) => {
      b.status = { running: false, url: 'http://127.0.0.1:11434', version: '', error: 'connection refused' }
    })
    expect(screen.getByTestId('ollama-down').textContent).toContain('ollama serve')
    expect((screen.getByTestId('composer') as HTMLTextAreaElement).disabled).toBe(true)
    backend.status = { running: true, url: 'http://127.0.0.1:11434', version: '0.11.4', error: '' }
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Retry' })))
    expect(screen.queryByTestId('ollama-down')).toBeNull()
  })

  it('disables the composer until a workspace is picked', async () => {
    await mount((b) => {
      b.cfg.workspace = ''
      b.chats = []
    })
    expect((screen.getByTestId('composer') as HTMLTextAreaElement).disabled).toBe(true)
    expect(screen.getByTestId('composer-disabled-reason').textContent).toMatch(/workspace/)
  })

  it('flags a model without tool support before sending', async () => {
    await mount((b) => {
      b.cfg.model = 'gemma3:1b'
      b.chats = []
    })
    expect(screen.getByTestId('composer-warning').textContent).toMatch(/cannot call tools/)
  })

  it('deletes a chat only after confirmation', async () => {
    const { backend } = await mount()
    fireEvent.click(screen.getByRole('button', { name: 'Delete Newest chat' }))
    expect(backend.callsOf('DeleteChat')).toEqual([])
    const confirm = screen.getByTestId('confirm-delete')
    expect(confirm.textContent).toContain('Newest chat')
    await act(async () => fireEvent.click(within(confirm).getByRole('button', { name: 'Delete' })))
    expect(backend.callsOf('DeleteChat')).toEqual([['c1']])
    expect(screen.getAllByTestId('chat-item')).toHaveLength(1)
  })

  it('writes a letter typed on a button in the message box, and Ctrl+L puts the cursor there', async () => {
    await mount()
    const box = screen.getByTestId('composer') as HTMLTextAreaElement
    const button = screen.getByRole('button', { name: 'Rename Newest chat' })
    button.focus()
    await act(async () => fireEvent.keyDown(button, { key: 'h' }))
    expect(document.activeElement).toBe(box)
    expect(box.value).toBe('h')
    button.focus()
    await act(async () => fireEvent.keyDown(button, { key: 'l', ctrlKey: true }))
    await act(async () => new Promise((r) => setTimeout(r, 0)))
    expect(document.activeElement).toBe(box)
  })

  it('renames a chat', async () => {
    const { backend } = await mount()
    fireEvent.click(screen.getByRole('button', { name: 'Rename Newest chat' }))
    const input = screen.getByRole('textbox', { name: 'Chat title' })
    fireEvent.change(input, { target: { value: 'Landing page' } })
    await act(async () => fireEvent.keyDown(input, { key: 'Enter' }))
    expect(backend.callsOf('RenameChat')).toEqual([['c1', 'Landing page']])
    expect(screen.getAllByTestId('chat-item')[0].textContent).toContain('Landing page')
  })

  it('marks a chat running in the list while its run is busy', async () => {
    const { backend } = await mount()
    const dotOf = (id: string) =>
      screen.getAllByTestId('chat-item').find((e) => e.dataset.chatId === id)!.querySelector('.busy-dot')
    act(() => void backend.emit([{ seq: 1, chatId: 'old', type: 'phase', phase: 'streaming', busy: true }]))
    expect(dotOf('old')).not.toBeNull()
    expect(dotOf('c1')).toBeNull()
    act(() => void backend.emit([{ seq: 2, chatId: 'old', type: 'phase', phase: 'idle' }]))
    expect(dotOf('old')).toBeNull()
  })

  it('reports visibility changes to the Go side', async () => {
    const { backend } = await mount()
    expect(backend.callsOf('SetVisible')).toEqual([[true]])
    document.dispatchEvent(new Event('visibilitychange'))
    expect(backend.callsOf('SetVisible')).toHaveLength(2)
  })
})

describe('the window for the keyboard and assistive technology', () => {
  // A chat with a bit of everything: an answer with code, a finished card with its diff and
  // output, a card waiting for approval; and an error line.
  async function mountBusyWindow() {
    const { backend, frames, store } = await mount((b) => {
      b.opened.c1 = {
        chat: b.chats[1],
        messages: [
          { id: 'u1', chatId: 'c1', role: 'user', content: 'make a page', createdAt: '', updatedAt: '', complete: true },
          { id: 'a1', chatId: 'c1', role: 'assistant', content: 'Here:\n\n```js\nlet x = 1\n```', thinking: 'hmm', thinkingMs: 900, createdAt: '', updatedAt: '', complete: true },
        ],
        toolCalls: [
          { id: 't1', chatId: 'c1', runId: 'r1', messageId: 'a1', name: 'write_file', args: { path: 'a.html' }, pending: false, ok: true, output: 'wrote a.html', details: { path: 'a.html', diff: '+<h1>' }, finishedAt: '2025-01-02T00:00:01Z' },
          { id: 't2', chatId: 'c1', runId: 'r1', messageId: 'a1', name: 'write_file', args: { path: 'b.html' }, awaitingApproval: true, pending: false, ok: false },
        ],
        phase: 'awaiting_approval',
        liveRunId: 'r1',
      }
      b.decide = async () => {
        throw 'refused'
      }
    })
    await act(() => store.decide('t2', 'allow'))
    return { backend, frames, store }
  }

  it('says when it is ready, and leaves the window title alone', async () => {
    document.title = 'Prototyper'
    const { store } = renderWithStore(<App />)
    expect(screen.getByTestId('app').dataset.ready).toBe('false')
    expect(screen.getByTestId('window-status').textContent).toBe('Loading…')
    await act(() => store.start())
    expect(screen.getByTestId('app').dataset.ready).toBe('true')
    expect(screen.getByTestId('window-status').textContent).toBe('Ready.')
    expect(document.title).toBe('Prototyper')
  })

  it('names every button; a button drawn with an icon or a symbol has a label and a title', async () => {
    await mountBusyWindow()
    const buttons = screen.getAllByRole('button')
    expect(buttons.length).toBeGreaterThan(10)
    expect(screen.getAllByRole('button', { name: /\w/ })).toHaveLength(buttons.length)
    for (const b of buttons) {
      if (/\w/.test(b.textContent ?? '')) continue
      expect(b.getAttribute('aria-label'), b.outerHTML).toBeTruthy()
      expect(b.getAttribute('title'), b.outerHTML).toBeTruthy()
    }
  })

  it('reaches every control with Tab in the order header, chat list, chat, composer', async () => {
    await mountBusyWindow()
    expect(document.querySelectorAll('[tabindex]:not([tabindex="0"]):not([tabindex="-1"])')).toHaveLength(0)
    // With no positive tabindex, the Tab order is the document order of the focusable elements.
    const focusable = Array.from(
      document.querySelectorAll<HTMLElement>('button, input, select, textarea, summary, a[href], [tabindex="0"]'),
    ).filter((el) => !(el as HTMLButtonElement).disabled)
    const regions = ['header', 'aside', '[data-testid="messages"], [data-testid="error-line"]', 'form.composer']
    const order = focusable.map((el) => regions.findIndex((r) => el.closest(r)))
    expect(order).not.toContain(-1)
    expect(order).toEqual([...order].sort((a, b) => a - b))
    expect(new Set(order)).toEqual(new Set([0, 1, 2, 3]))
  })
})


describe('whether the model a message goes to reads images', () => {
  const model = { size: 1, parameterSize: '4B', family: 'qwen3', tools: true, thinking: true }
  const state = (models: AppState['models']) => ({ activeChatId: null, chatList: [], config: { model: 'm' }, models }) as unknown as AppState

  it('is yes for a model with vision, no for one the server described without it, unknown otherwise', () => {
    expect(modelVision(state([{ ...model, name: 'm:latest', contextLength: 8192, vision: true }]))).toBe(true)
    expect(modelVision(state([{ ...model, name: 'm:latest', contextLength: 8192 }]))).toBe(false)
    expect(modelVision(state([{ ...model, name: 'm:latest', contextLength: 0 }]))).toBeUndefined()
    expect(modelVision(state([]))).toBeUndefined()
  })

  it('is unknown on an OpenAI-compatible server, which gives a context length but never says vision', () => {
    const openai = (models: AppState['models']) => ({ ...state(models), config: { model: 'm', provider: 'openai' } }) as unknown as AppState
    expect(modelVision(openai([{ ...model, name: 'm', contextLength: 32768 }]))).toBeUndefined()
    expect(modelVision(openai([{ ...model, name: 'm', contextLength: 0 }]))).toBeUndefined()
    expect(modelVision(openai([{ ...model, name: 'm', contextLength: 32768, vision: true }]))).toBe(true)
  })
})
