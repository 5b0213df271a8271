import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render } from '@testing-library/react'
import { Dialog } from './Dialog'

function setup() {
  const onClose = vi.fn()
  const view = render(
    <>
      <button type="button">Behind</button>
      <Dialog label="Test" testId="test-dialog" onClose={onClose}>
        <input aria-label="First" />
        <button type="button">Cancel</button>
        <button type="button">Save</button>
      </Dialog>
    </>,
  )
  return { ...view, onClose, byText: (name: string) => view.getByRole('button', { name }) }
}

describe('a modal dialog', () => {
  it('takes Tab from its last control back to its first, and Shift+Tab the other way round', () => {
    const { byText, getByLabelText } = setup()
    byText('Save').focus()
    fireEvent.keyDown(document.activeElement!, { key: 'Tab' })
    expect(document.activeElement).toBe(getByLabelText('First'))
    fireEvent.keyDown(document.activeElement!, { key: 'Tab', shiftKey: true })
    expect(document.activeElement).toBe(byText('Save'))
  })

  it('brings back a focus that lands behind it, and closes on Esc wherever the focus is', () => {
    const { byText, getByLabelText, onClose } = setup()
    byText('Behind').focus()
    expect(document.activeElement).toBe(getByLabelText('First'))
    // the focus lost (a button disabled while it works): Esc still closes
    ;(document.activeElement as HTMLElement).blur()
    fireEvent.keyDown(document.body, { key: 'Escape' })
    expect(onClose).toHaveBeenCalledTimes(1)
  })
})
