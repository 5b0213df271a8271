import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/react'
import type { ToolCard as Model, ToolVisualState } from '../state/chatReducer'
import { summarizeArgs, ToolCard } from './ToolCard'

function card(over: Partial<Model> = {}): Model {
  return {
    id: 't1',
    name: 'write_file',
    args: { path: 'src/index.html', content: '<h1>Hi</h1>' },
    state: 'running',
    messageId: 'm1',
    runId: 'r1',
    output: '',
    details: null,
    durationMs: null,
    approval: null,
    progress: null,
    ...over,
  }
}

describe('ToolCard', () => {
  it.each<[ToolVisualState, Partial<Model>, RegExp]>([
    ['pending', {}, /queued/],
    ['running', {}, /running/],
    ['completed', { durationMs: 42 }, /✓ 42 ms/],
    ['failed', { output: 'permission denied: src/index.html\nmore' }, /✗ failed/],
    ['denied', { approval: { decision: 'deny', by: 'user', reason: 'not now' } }, /denied/],
    ['interrupted', {}, /interrupted/],
    ['awaiting_approval', {}, /awaiting approval/],
  ])('shows the %s state as a badge and in data-tool-state', (state, over, badge) => {
    render(<ToolCard card={card({ state, ...over })} />)
    const el = screen.getByTestId('tool-card')
    expect(el.dataset.toolState).toBe(state)
    expect(el.dataset.toolCallId).toBe('t1')
    expect(el.textContent).toMatch(badge)
    expect(el.textContent).toContain('src/index.html')
  })

  it('shows a spinner only while running', () => {
    const { container, rerender } = render(<ToolCard card={card({ state: 'running' })} />)
    expect(container.querySelector('.spinner')).not.toBeNull()
    rerender(<ToolCard card={card({ state: 'completed', durationMs: 1500 })} />)
    expect(container.querySelector('.spinner')).toBeNull()
    expect(screen.getByTestId('tool-card').textContent).toContain('✓ 1.5 s')
  })

  it('shows the error of a failed call', () => {
    render(<ToolCard card={card({ state: 'failed', output: 'permission denied: src/index.html\nstack' })} />)
    expect(screen.getByText('permission denied: src/index.html')).toBeTruthy()
  })

  it('asks for approval with the arguments in full and reports the decision', () => {
    const onDecide = vi.fn()
    const { rerender } = render(<ToolCard card={card({ state: 'awaiting_approval' })} onDecide={onDecide} />)
    expect(screen.getByTestId('tool-card').textContent).toContain('"content": "<h1>Hi</h1>"')
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }))
    expect(onDecide).toHaveBeenCalledWith('t1', 'allow')
    // Once answered, the buttons are spent (but keep the focus where it was).
    rerender(<ToolCard card={card({ state: 'awaiting_approval' })} onDecide={onDecide} decided="allow" />)
    expect(screen.getByRole('button', { name: 'Deny' }).getAttribute('aria-disabled')).toBe('true')
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }))
    expect(onDecide).toHaveBeenCalledTimes(1)
    expect(screen.getByRole('status').textContent).toBe('Approved; starting…')
  })

  it('shows the approval keys on the card they apply to, and gives its Approve button the focus', () => {
    render(<ToolCard card={card({ state: 'awaiting_approval' })} current />)
    const approve = screen.getByRole('button', { name: 'Approve' })
    const deny = screen.getByRole('button', { name: 'Deny' })
    expect(approve.getAttribute('aria-keyshortcuts')).toBe('Alt+A')
    expect(deny.getAttribute('aria-keyshortcuts')).toBe('Alt+D')
    expect(approve.querySelector('kbd')?.textContent).toBe('Alt+A')
    expect(deny.querySelector('kbd')?.textContent).toBe('Alt+D')
    expect(document.activeElement).toBe(approve)
  })

  it('shows no keys on a waiting card they do not apply to, and leaves the focus alone', () => {
    render(<ToolCard card={card({ state: 'awaiting_approval' })} />)
    const approve = screen.getByRole('button', { name: 'Approve' })
    expect(approve.hasAttribute('aria-keyshortcuts')).toBe(false)
    expect(approve.querySelector('kbd')).toBeNull()
    expect(document.activeElement).not.toBe(approve)
  })

  it('reports a denial', () => {
    const onDecide = vi.fn()
    render(<ToolCard card={card({ state: 'awaiting_approval' })} onDecide={onDecide} />)
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }))
    expect(onDecide).toHaveBeenCalledWith('t1', 'deny')
  })

  it('shows the diff of a file tool folded, with its line counts', () => {
    const diff = '--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-old\n+new\n+more'
    const { container } = render(<ToolCard card={card({ state: 'completed', details: { path: 'x', diff } })} />)
    const details = container.querySelector('details.diff') as HTMLDetailsElement
    expect(details.open).toBe(false)
    expect(details.querySelector('summary')!.textContent).toBe('Diff +2 −1')
    expect(details.querySelectorAll('pre .add')).toHaveLength(2)
  })

  it('summarises arguments: the path for file tools, else key: value', () => {
    expect(summarizeArgs({ args: { path: 'a/b.go' }, details: null })).toBe('a/b.go')
    expect(summarizeArgs({ args: '{"path":"c.txt"}', details: null })).toBe('c.txt')
    expect(summarizeArgs({ args: { command: 'ls', n: 2 }, details: null })).toBe('command: ls, n: 2')
  })
})
