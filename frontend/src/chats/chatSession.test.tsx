import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen } from '@testing-library/react'
import type { FakeBackend } from '../fakeBackend'
import { groupByFolder } from '../components/ChatList'
import { mountApp, summary } from '../test/mountApp'

const chats = [
  summary('a', 'In the first folder', '/home/me/one', '2025-01-01T00:00:00Z'),
  summary('b', 'In the second folder', '/home/me/two', '2025-01-02T00:00:00Z', 'gemma3:1b'),
]
const mount = (prepare: (b: FakeBackend) => void = () => {}) => mountApp(chats, prepare)

const key = (k: string, init: KeyboardEventInit = {}) =>
  act(async () => {
    fireEvent.keyDown(document.activeElement ?? document.body, { key: k, ...init })
  })

describe('a chat owns its folder and model', () => {
  it('the header shows the open chat’s folder and model, not the ones new chats take', async () => {
    const { store } = await mount()
    expect(store.getState().activeChatId).toBe('b')
    expect(screen.getByTestId('workspace-button').textContent).toContain('two')
    expect(screen.getByTestId('model-button').textContent).toContain('gemma3:1b')
    await act(() => store.selectChat('a'))
    expect(screen.getByTestId('workspace-button').textContent).toContain('one')
    expect(screen.getByTestId('model-button').textContent).toContain('qwen3:4b')
    act(() => store.newChat())
    expect(screen.getByTestId('workspace-button').textContent).toContain('project')
  })

  it('a folder typed in the menu asks, then changes this chat', async () => {
    const { backend } = await mount()
    await key('o', { ctrlKey: true })
    const field = screen.getByRole('combobox', { name: 'Folder path' })
    expect(document.activeElement).toBe(field)
    fireEvent.change(field, { target: { value: '/home/me/three' } })
    await key('Enter')
    const dialog = screen.getByTestId('change-dialog')
    expect(dialog.textContent).toContain('three')
    expect(document.activeElement).toBe(screen.getByTestId('change-this-chat'))
    await act(async () => fireEvent.click(screen.getByTestId('change-this-chat')))
    expect(backend.callsOf('SetChatWorkspace')).toEqual([['b', '/home/me/three']])
    expect(screen.getByTestId('workspace-button').textContent).toContain('three')
    expect(screen.queryByTestId('change-dialog')).toBeNull()
  })

  it('or starts a new chat with it, leaving the open chat as it was', async () => {
    const { backend, store } = await mount()
    await key('o', { ctrlKey: true })
    fireEvent.change(screen.getByRole('combobox', { name: 'Folder path' }), { target: { value: '/home/me/three' } })
    await key('Enter')
    await act(async () => fireEvent.click(screen.getByTestId('change-new-chat')))
    expect(backend.callsOf('SetChatWorkspace')).toEqual([])
    expect(backend.callsOf('UseFolder')).toEqual([['/home/me/three']])
    expect(store.getState().activeChatId).toBeNull()
    expect(screen.getByTestId('workspace-button').textContent).toContain('three')
  })

  it('a folder that cannot be used says so until a folder is picked and used; other errors stay', async () => {
    const { backend, store } = await mount()
    // picked for this chat, as the menu and its question do
    const pick = async (dir: string) => {
      await act(() => store.requestFolder(dir))
      await act(() => store.applyChange('chat'))
    }
    const setChatWorkspace = backend.setChatWorkspace.bind(backend)
    backend.setChatWorkspace = async (chatId, dir) => {
      if (dir === '/tmp/x') throw '/tmp/x is not a folder that exists: pick another one, or create it first'
      return setChatWorkspace(chatId, dir)
    }
    await pick('/tmp/x')
    expect(screen.getByTestId('error-line').textContent).toContain('/tmp/x is not a folder that exists')
    await pick('/home/me/three')
    expect(screen.queryByTestId('error-line')).toBeNull()
    // an error about something else is not the folder's to take away
    backend.setChatModel = async () => {
      throw 'this chat is running or waiting for your answer: stop it or answer first, then change it'
    }
    await act(() => store.requestModel('llama3.2:1b'))
    await act(() => store.applyChange('chat'))
    expect(screen.getByTestId('error-line').textContent).toContain('This chat is running')
    await pick('/home/me/four')
    expect(screen.getByTestId('error-line').textContent).toContain('This chat is running')
  })

  it('an error goes once another chat is opened, or a message is sent', async () => {
    const { backend, store } = await mount()
    const send = backend.send.bind(backend)
    backend.send = async () => {
      throw 'the workspace folder /home/me/two does not exist (any more): pick another folder'
    }
    await act(() => store.send('Write it').catch(() => {}))
    expect(screen.getByTestId('error-line').textContent).toContain('does not exist')
    await act(() => store.selectChat('a'))
    expect(screen.queryByTestId('error-line')).toBeNull()
    await act(() => store.send('Write it').catch(() => {}))
    expect(screen.getByTestId('error-line').textContent).toContain('does not exist')
    backend.send = send
    await act(() => store.send('Write it'))
    expect(screen.queryByTestId('error-line')).toBeNull()
  })

  it('a folder for new chats that is gone is said as the window opens, and goes once one is picked', async () => {
    const { store } = await mountApp([], (b) => {
      b.cfg = { ...b.cfg, workspace: '/home/me/gone', workspaceProblem: '/home/me/gone is not a folder that exists: pick another one, or create it first' }
    })
    expect(screen.getByTestId('error-line').textContent).toContain('/home/me/gone is not a folder that exists')
    await act(() => store.requestFolder('/home/me/three'))
    expect(screen.queryByTestId('error-line')).toBeNull()
  })

  it('Dismiss takes the error line away and gives the keys back to the box', async () => {
    const { backend, store } = await mount()
    backend.send = async () => {
      throw 'Ollama could not be reached'
    }
    await act(() => store.send('Write it').catch(() => {}))
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Dismiss' })))
    expect(screen.queryByTestId('error-line')).toBeNull()
    expect(document.activeElement).toBe(screen.getByTestId('composer'))
  })

  it('a folder picked while the chat runs offers only a new chat, and says why', async () => {
    const { emit, store } = await mount()
    emit([{ type: 'phase', chatId: 'b', runId: 'r1', phase: 'streaming', busy: true }])
    await act(() => store.requestFolder('/home/me/three'))
    expect(screen.getByTestId('change-busy').textContent).toContain('stop it or answer first')
    expect((screen.getByTestId('change-this-chat') as HTMLButtonElement).disabled).toBe(true)
    expect(document.activeElement).toBe(screen.getByTestId('change-new-chat'))
  })

  it('Esc in the question changes nothing', async () => {
    const { backend } = await mount()
    await key('o', { ctrlKey: true })
    fireEvent.change(screen.getByRole('combobox', { name: 'Folder path' }), { target: { value: '/x' } })
    await key('Enter')
    await key('Escape')
    expect(screen.queryByTestId('change-dialog')).toBeNull()
    expect(backend.callsOf('SetChatWorkspace')).toEqual([])
    expect(backend.callsOf('UseFolder')).toEqual([])
  })

  it('with no chat open a picked folder is simply the next chat’s, with no question', async () => {
    const { backend, store } = await mount()
    act(() => store.newChat())
    await key('o', { ctrlKey: true })
    fireEvent.change(screen.getByRole('combobox', { name: 'Folder path' }), { target: { value: '/home/me/three' } })
    await key('Enter')
    expect(screen.queryByTestId('change-dialog')).toBeNull()
    expect(backend.callsOf('UseFolder')).toEqual([['/home/me/three']])
  })

  it('the folder menu lists the folders worked in, and moves with the arrows', async () => {
    const { store } = await mount()
    await key('o', { ctrlKey: true })
    const names = screen.getAllByRole('option').map((o) => o.textContent)
    expect(names.some((n) => n?.includes('/home/me/one'))).toBe(true)
    expect(names.some((n) => n?.includes('/home/me/project'))).toBe(true)
    expect(names[names.length - 1]).toBe('Other folder…')
    expect(screen.getAllByRole('option')[0].getAttribute('aria-selected')).toBe('true')
    await key('ArrowDown')
    expect(screen.getAllByRole('option')[1].getAttribute('aria-selected')).toBe('true')
    await key('ArrowUp')
    await key('ArrowUp')
    expect(screen.getAllByRole('option')[names.length - 1].getAttribute('aria-selected')).toBe('true')
    await key('Escape')
    expect(screen.queryByRole('combobox', { name: 'Folder path' })).toBeNull()
    expect(store.getState().pendingChange).toBeNull()
  })

  it('a model picked while a chat is open asks too, and changes that chat', async () => {
    const { backend } = await mount()
    await key('m', { ctrlKey: true })
    const filter = screen.getByRole('combobox', { name: 'Filter the models' })
    fireEvent.change(filter, { target: { value: 'qwen' } })
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([expect.stringContaining('qwen3:4b')])
    await key('Enter')
    await act(async () => fireEvent.click(screen.getByTestId('change-this-chat')))
    expect(backend.callsOf('SetChatModel')).toEqual([['b', 'qwen3:4b']])
    expect(backend.callsOf('SetModel')).toEqual([])
    expect(screen.getByTestId('model-button').textContent).toContain('qwen3:4b')
  })

  it('the model menu opens on the model in use, so that Enter keeps it', async () => {
    const { backend } = await mount()
    await key('m', { ctrlKey: true })
    const active = screen.getAllByRole('option').filter((o) => o.getAttribute('aria-selected') === 'true')
    expect(active.map((o) => o.textContent)).toEqual([expect.stringContaining('gemma3:1b')])
    await key('Enter')
    expect(screen.queryByTestId('change-dialog')).toBeNull()
    expect(backend.callsOf('SetChatModel')).toEqual([])
    expect(screen.getByTestId('model-button').textContent).toContain('gemma3:1b')
  })

  it('the sidebar says each chat’s folder and date, grouped by folder', async () => {
    await mount()
    const items = screen.getAllByTestId('chat-item')
    expect(items[1].textContent).toMatch(/2025|Jan/)
    expect(screen.getAllByTestId('chat-group').map((g) => g.textContent?.trim())).toEqual(['two', 'one'])
    expect(items[0].closest('section')?.getAttribute('aria-label')).toBe('/home/me/two')
  })

  it('groups keep the newest first, and tell apart two folders of one name', () => {
    const groups = groupByFolder([
      summary('1', 'newest', '/a/site', '2025-01-03T00:00:00Z'),
      summary('2', 'other', '/b/site', '2025-01-02T00:00:00Z'),
      summary('3', 'older', '/a/site', '2025-01-01T00:00:00Z'),
    ])
    expect(groups.map((g) => [g.heading, g.chats.map((c) => c.id)])).toEqual([
      ['a/site', ['1', '3']],
      ['b/site', ['2']],
    ])
    expect(groupByFolder([summary('1', 'x', '/a/site', '2025-01-03T00:00:00Z')])[0].heading).toBe('')
  })

  it('chats of one folder are labelled with it, without a heading', async () => {
    await mountApp([summary('a', 'First', '/home/me/one', '2025-01-01T00:00:00Z'), summary('b', 'Second', '/home/me/one', '2025-01-02T00:00:00Z')])
    expect(screen.queryByTestId('chat-group')).toBeNull()
    expect(screen.getAllByTestId('chat-item')[0].textContent).toContain('one')
  })
})
