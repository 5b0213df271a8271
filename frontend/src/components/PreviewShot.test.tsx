import { act, fireEvent, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { mountPreview, onePageSite, openPreviewPane } from '../test/mountPreview'

const ws = '/home/u/site'
const site = onePageSite(ws)
// a 1×1 PNG
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='

async function openPane(shot: string) {
  const { backend } = await mountPreview(site, {
    prepare: (b) => {
      b.previewShot = shot
    },
  })
  await openPreviewPane()
  return backend
}

const altI = { key: 'i', code: 'KeyI', altKey: true }

describe('a screenshot of the preview', () => {
  it('is attached to the message being typed with Alt+I, as a pasted image, and the composer has the focus', async () => {
    const backend = await openPane(png)
    await act(async () => {
      fireEvent.keyDown(window, altI)
    })
    expect(backend.callsOf('PreviewScreenshot')).toHaveLength(1)
    const img = await screen.findByRole('img', { name: 'Image 1 to send' })
    expect(img.getAttribute('src')).toBe(`data:image/png;base64,${png}`)
    expect(document.activeElement).toBe(screen.getByTestId('composer'))
    expect(screen.getByRole('button', { name: 'Attach a screenshot' }).getAttribute('aria-keyshortcuts')).toBe('Alt+I')
  })

  it('says why when the web view gives no picture, and attaches nothing', async () => {
    await openPane('')
    await act(async () => {
      fireEvent.click(screen.getByRole('button', { name: 'Attach a screenshot' }))
    })
    expect((await screen.findByTestId('preview-shot-error')).textContent).toMatch(/could not be captured/)
    expect(screen.queryByTestId('composer-images')).toBeNull()
  })

  it('is not taken while the pane is closed', async () => {
    const backend = await openPane(png)
    await act(async () => {
      fireEvent.keyDown(window, { key: 'p', code: 'KeyP', altKey: true })
    })
    await act(async () => {
      fireEvent.keyDown(window, altI)
    })
    expect(backend.callsOf('PreviewScreenshot')).toHaveLength(0)
  })
})
