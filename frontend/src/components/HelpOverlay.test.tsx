import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/react'
import { HelpOverlay } from './HelpOverlay'

describe('HelpOverlay', () => {
  it('opens with the focus on its title, so it shows its top, and Esc still closes it', () => {
    const onClose = vi.fn()
    render(<HelpOverlay onClose={onClose} />)
    expect(document.activeElement).toBe(screen.getByRole('heading', { name: 'Keyboard shortcuts' }))
    fireEvent.keyDown(document.activeElement as Element, { key: 'Escape' })
    expect(onClose).toHaveBeenCalledTimes(1)
  })
})
