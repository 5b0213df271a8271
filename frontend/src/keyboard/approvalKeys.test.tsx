import { beforeEach, describe, expect, it } from 'vitest'
import { act, fireEvent, screen, within } from '@testing-library/react'
import type { AgentEvent, ToolCallRecord } from '../backend'
import type { FakeBackend } from '../fakeBackend'
import { mountApp } from '../test/mountApp'
import { resetTyping } from './typing'

beforeEach(() => resetTyping())

async function mount(prepare?: (backend: FakeBackend) => void) {
  const { backend, frames, store } = await mountApp(
    [
      { id: 'c1', title: 'Open chat', createdAt: '2025-01-02T00:00:00Z', updatedAt: '2025-01-02T00:00:00Z', messageCount: 1, phase: 'idle' },
      { id: 'c2', title: 'Other chat', createdAt: '2025-01-01T00:00:00Z', updatedAt: '2025-01-01T00:00:00Z', messageCount: 1, phase: 'idle' },
    ],
    prepare,
  )
  const composer = screen.getByRole('textbox', { name: 'Message' }) as HTMLTextAreaElement
  let seq = 0
  // Sends events as the bridge does, and paints them.
  const emit = (events: Array<Partial<AgentEvent> & Pick<AgentEvent, 'type'>>) =>
    act(() => {
      backend.emit(events.map((e) => ({ seq: ++seq, runId: 'r1', messageId: 'm1', ...e })))
      frames.drain()
    })
  // A run that pauses on the approval of each named call.
  const waitFor = (...ids: string[]) =>
    emit([
      ...ids.map((id) => ({ type: 'tool.approval_requested' as const, toolCallId: id, name: 'write_file', args: { path: `${id}.txt` } })),
      { type: 'phase', phase: 'awaiting_approval' },
    ])
  return { backend, store, composer, emit, waitFor }
}

const alt = (key: string) => ({ key, code: `Key${key.toUpperCase()}`, altKey: true })
const cardOf = (id: string) => screen.getAllByTestId('tool-card').find((e) => e.dataset.toolCallId === id)!

describe('approving with the keyboard', () => {
  it('gives the focus to Approve when a call starts waiting and the composer is empty', async () => {
    const { composer, waitFor } = await mount()
    expect(document.activeElement).toBe(composer)
    waitFor('t1')
    expect(document.activeElement).toBe(within(cardOf('t1')).getByRole('button', { name: 'Approve' }))
  })

  it('leaves the focus in the composer while it holds a draft', async () => {
    const { composer, waitFor } = await mount()
    fireEvent.change(composer, { target: { value: 'and make it blue' } })
    resetTyping()
    waitFor('t1')
    expect(document.activeElement).toBe(composer)
  })

  it('leaves the focus where a key was just typed, even in an emptied field', async () => {
    const { composer, waitFor } = await mount()
    fireEvent.keyDown(composer, { key: 'Backspace' })
    waitFor('t1')
    expect(document.activeElement).toBe(composer)
  })

  it('leaves the focus in the composer when the chat opened at start already waits', async () => {
    const { composer } = await mount((backend) => {
      backend.opened['c1'] = {
        chat: backend.chats[0],
        phase: 'awaiting_approval',
        liveRunId: 'r1',
        messages: [],
        toolCalls: [
          {
            id: 'w1',
            chatId: 'c1',
            runId: 'r1',
            messageId: 'm1',
            name: 'write_file',
            args: { path: 'a.txt', content: 'a' },
            pending: false,
            awaitingApproval: true,
          } as unknown as ToolCallRecord,
        ],
      }
    })
    expect(within(cardOf('w1')).getByRole('button', { name: 'Approve' })).toBeTruthy()
    expect(document.activeElement).toBe(composer)
  })

  it('gives the focus to Approve right after a message was sent with Enter', async () => {
    const { composer, waitFor } = await mount()
    fireEvent.keyDown(composer, { key: 'h' })
    fireEvent.keyDown(composer, { key: 'Enter' })
    waitFor('t1')
    expect(document.activeElement).toBe(within(cardOf('t1')).getByRole('button', { name: 'Approve' }))
  })

  it('approves the oldest waiting call with Alt+A from the composer, without touching the draft', async () => {
    const { backend, composer, waitFor } = await mount()
    fireEvent.change(composer, { target: { value: 'draft' } })
    resetTyping()
    waitFor('t1', 't2')
    const notPrevented = fireEvent.keyDown(composer, alt('a'))
    expect(notPrevented).toBe(false)
    expect(backend.callsOf('Decide')).toEqual([['t1', 'allow', '']])
    expect(composer.value).toBe('draft')
    // The next key goes to the next call: the first one is answered.
    fireEvent.keyDown(composer, alt('d'))
    expect(backend.callsOf('Decide')).toEqual([
      ['t1', 'allow', ''],
      ['t2', 'deny', 'denied in the window'],
    ])
    // Nothing is left to answer: the keys do nothing.
    expect(fireEvent.keyDown(composer, alt('a'))).toBe(true)
    expect(backend.callsOf('Decide')).toHaveLength(2)
  })

  it('denies with Alt+D from anywhere in the window', async () => {
    const { backend, waitFor } = await mount()
    waitFor('t1')
    fireEvent.keyDown(document.body, alt('d'))
    expect(backend.callsOf('Decide')).toEqual([['t1', 'deny', 'denied in the window']])
  })

  it('shows the keys on the card they apply to', async () => {
    const { waitFor } = await mount()
    waitFor('t1', 't2')
    const approve = within(cardOf('t1')).getByRole('button', { name: 'Approve' })
    expect(approve.getAttribute('aria-keyshortcuts')).toBe('Alt+A')
    expect(within(cardOf('t1')).getByRole('button', { name: 'Deny' }).getAttribute('aria-keyshortcuts')).toBe('Alt+D')
    expect(within(cardOf('t2')).getByRole('button', { name: 'Approve' }).hasAttribute('aria-keyshortcuts')).toBe(false)
  })

  it('ignores a held key, other modifiers, and calls waiting in another chat', async () => {
    const { backend, emit } = await mount()
    emit([{ type: 'tool.approval_requested', chatId: 'c2', toolCallId: 'x1', name: 'write_file' }])
    fireEvent.keyDown(document.body, alt('a'))
    fireEvent.keyDown(document.body, { ...alt('a'), ctrlKey: true })
    fireEvent.keyDown(document.body, { ...alt('a'), repeat: true })
    expect(backend.callsOf('Decide')).toEqual([])
  })

  it('leaves a call behind the open settings alone', async () => {
    const { backend, waitFor } = await mount()
    // Opened from the keyboard: the button has the focus.
    const settings = screen.getByRole('button', { name: 'Settings' })
    settings.focus()
    fireEvent.click(settings)
    const dialog = screen.getByRole('dialog', { name: 'Settings' })
    waitFor('t1')
    expect(dialog.contains(document.activeElement)).toBe(true)
    fireEvent.keyDown(document.activeElement!, alt('a'))
    expect(backend.callsOf('Decide')).toEqual([])
    // Esc closes the settings and gives the focus back to their button.
    fireEvent.keyDown(dialog, { key: 'Escape' })
    expect(screen.queryByRole('dialog')).toBeNull()
    expect(document.activeElement).toBe(settings)
  })

  it('gives the focus back to the composer once the approved call leaves its buttons', async () => {
    const { composer, waitFor, emit } = await mount()
    waitFor('t1')
    const approve = within(cardOf('t1')).getByRole('button', { name: 'Approve' })
    fireEvent.click(approve)
    expect(approve.getAttribute('aria-disabled')).toBe('true')
    expect(document.activeElement).toBe(approve)
    emit([{ type: 'tool.approval_resolved', toolCallId: 't1', decision: 'allow', by: 'user' }])
    await act(() => new Promise((r) => setTimeout(r, 0)))
    expect(document.activeElement).toBe(composer)
  })

  it('moves the focus to the next waiting call once the first is answered', async () => {
    const { waitFor, emit } = await mount()
    waitFor('t1', 't2')
    fireEvent.keyDown(document.body, alt('a'))
    expect(document.activeElement).toBe(within(cardOf('t2')).getByRole('button', { name: 'Approve' }))
    emit([{ type: 'tool.approval_resolved', toolCallId: 't1', decision: 'allow', by: 'user' }])
    await act(() => new Promise((r) => setTimeout(r, 0)))
    expect(document.activeElement).toBe(within(cardOf('t2')).getByRole('button', { name: 'Approve' }))
  })

  it('lets a refused decision be made again', async () => {
    const { backend, waitFor } = await mount()
    backend.decide = async () => {
      throw 'the run is no longer waiting for this call'
    }
    waitFor('t1')
    await act(async () => void fireEvent.keyDown(document.body, alt('a')))
    expect(screen.getByTestId('error-line').textContent).toContain('no longer waiting')
    expect(within(cardOf('t1')).getByRole('button', { name: 'Approve' }).hasAttribute('aria-disabled')).toBe(false)
  })

  it('sends the composer’s message on Enter while a call waits, without deciding it', async () => {
    const { backend, composer, waitFor } = await mount()
    waitFor('t1')
    composer.focus()
    fireEvent.change(composer, { target: { value: 'do something else' } })
    fireEvent.keyDown(composer, { key: 'Enter' })
    expect(backend.callsOf('Send')).toEqual([['c1', 'do something else']])
    expect(backend.callsOf('Decide')).toEqual([])
  })

  it('says in its status region what waits, and which keys answer it', async () => {
    const { waitFor } = await mount()
    expect(screen.getByTestId('window-status').textContent).toBe('Ready.')
    waitFor('t1')
    expect(screen.getByTestId('window-status').textContent).toBe(
      'write_file t1.txt waits for your approval: Alt+A approves, Alt+D denies.',
    )
  })
})
