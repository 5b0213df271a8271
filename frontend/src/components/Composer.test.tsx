import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/react'
import { Composer } from './Composer'

function setup(props: Partial<Parameters<typeof Composer>[0]> = {}) {
  const onSend = vi.fn()
  const onStop = vi.fn()
  render(<Composer disabledReason="" busy={false} onSend={onSend} onStop={onStop} {...props} />)
  const box = screen.getByTestId('composer') as HTMLTextAreaElement
  return { onSend, onStop, box }
}

describe('Composer', () => {
  it('has the focus at start', () => {
    const { box } = setup()
    expect(document.activeElement).toBe(box)
  })

  it('sends on Enter and clears the box', () => {
    const { onSend, box } = setup()
    fireEvent.change(box, { target: { value: 'make a page' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).toHaveBeenCalledWith('make a page')
    expect(box.value).toBe('')
  })

  it('does not send on Shift+Enter (the box gets a new line)', () => {
    const { onSend, box } = setup()
    fireEvent.change(box, { target: { value: 'line one' } })
    const notPrevented = fireEvent.keyDown(box, { key: 'Enter', shiftKey: true })
    expect(onSend).not.toHaveBeenCalled()
    expect(notPrevented).toBe(true)
  })

  it('does not send an empty message', () => {
    const { onSend, box } = setup()
    fireEvent.change(box, { target: { value: '   ' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).not.toHaveBeenCalled()
  })

  it('stops a busy run on Esc, and offers a Stop button', () => {
    const { onStop, box } = setup({ busy: true })
    fireEvent.keyDown(box, { key: 'Escape' })
    expect(onStop).toHaveBeenCalledTimes(1)
    fireEvent.click(screen.getByTestId('stop'))
    expect(onStop).toHaveBeenCalledTimes(2)
  })

  it('ignores Esc when nothing runs', () => {
    const { onStop, box } = setup({ busy: false })
    fireEvent.keyDown(box, { key: 'Escape' })
    expect(onStop).not.toHaveBeenCalled()
    expect(screen.queryByTestId('stop')).toBeNull()
  })

  it('is disabled with its reason while nothing is configured', () => {
    const { onSend, box } = setup({ disabledReason: 'Pick a workspace folder (top left) to start.' })
    expect(box.disabled).toBe(true)
    expect(screen.getByTestId('composer-disabled-reason').textContent).toBe('Pick a workspace folder (top left) to start.')
    fireEvent.change(box, { target: { value: 'x' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).not.toHaveBeenCalled()
  })

  it('takes the focus once it becomes usable', () => {
    const onSend = vi.fn()
    const { rerender } = render(<Composer disabledReason="Loading…" busy={false} onSend={onSend} onStop={() => {}} />)
    rerender(<Composer disabledReason="" busy={false} onSend={onSend} onStop={() => {}} />)
    expect(document.activeElement).toBe(screen.getByTestId('composer'))
  })

  it('shows a warning that does not block sending', () => {
    const { onSend, box } = setup({ warning: 'gemma3:1b cannot call tools' })
    expect(screen.getByTestId('composer-warning').textContent).toContain('cannot call tools')
    fireEvent.change(box, { target: { value: 'hi' } })
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSend).toHaveBeenCalledWith('hi')
  })
})
