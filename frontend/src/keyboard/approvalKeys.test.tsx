import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen, within } from '@testing-library/react'
import type { AgentEvent, OpenedChat, ToolCallRecord } from '../backend'
import type { FakeBackend } from '../fakeBackend'
import { mountApp } from '../test/mountApp'

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

// The chat c1 as the store gives it when the window opens it: idle and empty but for fields.
const openWaiting = (backend: FakeBackend, fields: Partial<OpenedChat>) => {
  backend.opened['c1'] = { chat: backend.chats[0], phase: 'idle', liveRunId: '', messages: [], toolCalls: [], ...fields }
}

const alt = (key: string) => ({ key, code: `Key${key.toUpperCase()}`, altKey: true })
const cardOf = (id: string) => screen.getAllByTestId('tool-card').find((e) => e.dataset.toolCallId === id)!

describe('approving with the keyboard', () => {
  it('leaves the focus in the empty composer when a call starts waiting: the next keys are text, Alt+A approves', async () => {
    const { backend, composer, waitFor } = await mount()
    expect(document.activeElement).toBe(composer)
    waitFor('t1')
    expect(document.activeElement).toBe(composer)
    expect(screen.getByTestId('window-status').textContent).toBe('write_file t1.txt waits for your approval: Alt+A approves, Alt+D denies.')
    fireEvent.keyDown(composer, { key: ' ', code: 'Space' })
    fireEvent.change(composer, { target: { value: 'hi there' } })
    expect(backend.callsOf('Decide')).toEqual([])
    expect(composer.value).toBe('hi there')
  })

  it('leaves the focus in the composer while it holds a draft', async () => {
    const { composer, waitFor } = await mount()
    fireEvent.change(composer, { target: { value: 'and make it blue' } })
    waitFor('t1')
    expect(document.activeElement).toBe(composer)
  })

  it('leaves the focus in the composer right after a message was sent with Enter', async () => {
    const { composer, waitFor } = await mount()
    fireEvent.keyDown(composer, { key: 'h' })
    fireEvent.keyDown(composer, { key: 'Enter' })
    waitFor('t1')
    expect(document.activeElement).toBe(composer)
  })

  it('leaves the focus on a control the user put it on', async () => {
    const { waitFor } = await mount()
    const settings = screen.getByRole('button', { name: 'Settings' })
    settings.focus()
    waitFor('t1')
    expect(document.activeElement).toBe(settings)
  })

  it('gives the focus to Approve when a call starts waiting and nothing has the focus', async () => {
    const { waitFor } = await mount()
    ;(document.activeElement as HTMLElement | null)?.blur()
    waitFor('t1')
    expect(document.activeElement).toBe(within(cardOf('t1')).getByRole('button', { name: 'Approve' }))
  })

  it('leaves the focus in the composer when the chat opened at start already waits', async () => {
    const { composer } = await mount((backend) =>
      openWaiting(backend, {
        phase: 'awaiting_approval',
        liveRunId: 'r1',
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
        toolStates: { w1: 'awaiting_approval' },
      }),
    )
    expect(within(cardOf('w1')).getByRole('button', { name: 'Approve' })).toBeTruthy()
    expect(document.activeElement).toBe(composer)
  })

  it('approves the oldest waiting call with Alt+A from the composer, without touching the draft', async () => {
    const { backend, composer, waitFor } = await mount()
    fireEvent.change(composer, { target: { value: 'draft' } })
    waitFor('t1', 't2')
    const notPrevented = fireEvent.keyDown(composer, alt('a'))
    expect(notPrevented).toBe(false)
    expect(backend.callsOf('Decide')).toEqual([['t1', 'allow', '']])
    expect(composer.value).toBe('draft')
    // The next key goes to the next call: the first one is answered.
    fireEvent.keyDown(composer, alt('d'))
    expect(backend.callsOf('Decide')).toEqual([
      ['t1', 'allow', ''],
      ['t2', 'deny', ''],
    ])
    // Nothing is left to answer: the keys do nothing.
    expect(fireEvent.keyDown(composer, alt('a'))).toBe(true)
    expect(backend.callsOf('Decide')).toHaveLength(2)
  })

  it('denies with Alt+D from anywhere in the window', async () => {
    const { backend, waitFor } = await mount()
    waitFor('t1')
    fireEvent.keyDown(document.body, alt('d'))
    expect(backend.callsOf('Decide')).toEqual([['t1', 'deny', '']]) // the model reads "denied by the user"
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
    // Tab to Approve, then Enter.
    const approve = within(cardOf('t1')).getByRole('button', { name: 'Approve' })
    approve.focus()
    fireEvent.click(approve)
    expect(approve.getAttribute('aria-disabled')).toBe('true')
    expect(document.activeElement).toBe(approve)
    emit([{ type: 'tool.approval_resolved', toolCallId: 't1', decision: 'allow', by: 'user' }])
    await act(() => new Promise((r) => setTimeout(r, 0)))
    expect(document.activeElement).toBe(composer)
  })

  it('moves the focus from a spent Approve to the next waiting call', async () => {
    const { waitFor, emit } = await mount()
    waitFor('t1', 't2')
    // Tabbed to the first Approve, the user approves with its key.
    const first = within(cardOf('t1')).getByRole('button', { name: 'Approve' })
    first.focus()
    fireEvent.keyDown(first, alt('a'))
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

describe('the offer to summarize older messages', () => {
  const offerText = "3 earlier messages no longer fit in qwen3:4b's context (9.1K of 8K tokens). Summarize them — the same model writes a summary you can read, kept in the chat — or leave them out."
  const offer = (emit: Awaited<ReturnType<typeof mount>>['emit']) =>
    emit([
      { type: 'context.summary_offered', offerId: 'offer_r1', droppedMessages: 3, model: 'qwen3:4b', message: offerText },
      { type: 'run.finished', stopReason: 'awaiting_summary' },
      { type: 'phase', phase: 'awaiting_summary' },
    ])
  const card = () => screen.getByTestId('summary-offer')

  it('shows the offer with its two answers, says which keys answer it, and Alt+S summarizes', async () => {
    const { backend, emit } = await mount()
    offer(emit)
    expect(card().textContent).toContain(offerText)
    const summarize = within(card()).getByRole('button', { name: 'Summarize' })
    expect(summarize.getAttribute('aria-keyshortcuts')).toBe('Alt+S')
    expect(within(card()).getByRole('button', { name: 'Leave out' }).getAttribute('aria-keyshortcuts')).toBe('Alt+O')
    expect(screen.getByTestId('window-status').textContent).toBe(`${offerText} Alt+S summarizes, Alt+O leaves them out.`)
    await act(async () => void fireEvent.keyDown(document.body, alt('s')))
    expect(backend.callsOf('AnswerSummaryOffer')).toEqual([['c1', 'summarize']])
    // the card says the answer at once, and a second key answers nothing
    expect(within(card()).queryByRole('button', { name: 'Summarize' })).toBeNull()
    expect(screen.getByTestId('summary-offer-answer').textContent).toBe('You chose Summarize.')
    await act(async () => void fireEvent.keyDown(document.body, alt('o')))
    expect(backend.callsOf('AnswerSummaryOffer')).toHaveLength(1)
  })

  it('leaves them out with the Leave out button, and keeps the answer the run reports', async () => {
    const { backend, emit } = await mount()
    offer(emit)
    await act(async () => void fireEvent.click(within(card()).getByRole('button', { name: 'Leave out' })))
    expect(backend.callsOf('AnswerSummaryOffer')).toEqual([['c1', 'leave_out']])
    emit([
      { type: 'context.summary_answered', offerId: 'offer_r1', choice: 'leave_out' },
      { type: 'run.started', runId: 'r2', trigger: 'summary' },
      { type: 'phase', phase: 'submitted', busy: true, runId: 'r2' },
    ])
    expect(card().dataset.choice).toBe('leave_out')
    expect(screen.getByTestId('summary-offer-answer').textContent).toMatch(/^You chose Leave out: from now on this chat leaves out/)
  })

  it('says an offer the run was stopped on was not answered, and gives a message that waited back to the composer', async () => {
    const { backend, composer, emit } = await mount()
    offer(emit)
    fireEvent.change(composer, { target: { value: 'and this' } })
    fireEvent.keyDown(composer, { key: 'Enter' })
    expect(backend.callsOf('Send')).toEqual([['c1', 'and this']])
    await act(async () => void fireEvent.keyDown(composer, { key: 'Escape' }))
    expect(backend.callsOf('Stop')).toEqual([['c1']])
    emit([
      { type: 'context.summary_answered', offerId: 'offer_r1', choice: 'none' },
      { type: 'phase', phase: 'idle' },
    ])
    expect(within(card()).queryByRole('button')).toBeNull()
    expect(screen.getByTestId('summary-offer-answer').textContent).toBe('Not answered: the run was stopped.')
    expect(composer.value).toBe('and this')
  })

  it('shows a chat reopened while its offer waits with the offer to answer, and an answered one with its answer', async () => {
    const { backend } = await mount((backend) =>
      openWaiting(backend, {
        phase: 'awaiting_summary',
        messages: [{ id: 'u1', role: 'user', content: 'more', runId: 'r2', complete: true } as never],
        notes: [
          { runId: 'r1', message: 'An earlier offer.', offer: { id: 'offer_r1', messages: 2, tokens: 9000, numCtx: 8192, model: 'm', choice: 'summarize' } },
          { runId: 'r2', message: offerText, offer: { id: 'offer_r2', messages: 3, tokens: 9100, numCtx: 8192, model: 'm' } },
        ],
      }),
    )
    const cards = screen.getAllByTestId('summary-offer')
    expect(cards.map((c) => c.dataset.choice)).toEqual(['waiting'])
    await act(async () => void fireEvent.keyDown(document.body, alt('s')))
    expect(backend.callsOf('AnswerSummaryOffer')).toEqual([['c1', 'summarize']])
  })
})
