import { describe, expect, it } from 'vitest'
import { act, fireEvent, screen } from '@testing-library/react'
import { mountApp, summary } from '../test/mountApp'
import { chatItemName } from './ChatList'

describe('ChatList', () => {
  it('closes the delete prompt with Esc, gives the keys back to its trash button and never stops the running answer', async () => {
    const { backend, store } = await mountApp([
      summary('old', 'Older chat', '/w', '2025-01-01T00:00:00Z'),
      summary('c1', 'Newest chat', '/w', '2025-01-02T00:00:00Z'),
    ])
    await act(() => store.selectChat('c1'))
    act(() => void backend.emit([{ seq: 1, type: 'phase', phase: 'streaming', busy: true, runId: 'r1' }]))
    expect(screen.getByTestId('stop')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Delete Older chat' }))
    const cancel = screen.getByRole('button', { name: 'Cancel' })
    expect(document.activeElement).toBe(cancel)
    await act(async () => fireEvent.keyDown(cancel, { key: 'Escape' }))
    expect(screen.queryByTestId('confirm-delete')).toBeNull()
    expect(backend.callsOf('Stop')).toEqual([])
    expect(document.activeElement).toBe(screen.getByRole('button', { name: 'Delete Older chat' }))
    // With nothing open, Esc still stops the run.
    await act(async () => fireEvent.keyDown(document.activeElement ?? document.body, { key: 'Escape' }))
    expect(backend.callsOf('Stop')).toEqual([['c1']])
  })

  it('names a chat in words a screen reader says apart: its title, folder and time with commas, what it waits for first', () => {
    expect(chatItemName('Write a long answer', { busy: false, waiting: false, folder: 'workspace', date: '06:55 PM' })).toBe('Write a long answer, workspace, 06:55 PM')
    expect(chatItemName('', { busy: true, waiting: true, folder: '', date: '3 Nov' })).toBe('running, Waiting for your answer, Untitled, 3 Nov')
  })
})
