import { act, fireEvent, render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { App } from '../App'
import type { PreviewPage } from '../backend'
import { FakeBackend, FakeFrames } from '../fakeBackend'
import { PreviewStore } from '../state/preview'
import { AppStore } from '../state/store'
import { StoreContext } from '../state/useAppState'
import { summary } from '../test/mountApp'
import { PreviewContext } from './PreviewPane'

const ws = '/home/u/site'
const site: PreviewPage = {
  url: 'http://127.0.0.1:4000/s3cr3t/s/ab/',
  origin: 'http://127.0.0.1:4000',
  workspace: ws,
  page: 'index.html',
  pages: ['index.html'],
  report: { workspace: ws, url: 'http://127.0.0.1:4000/s3cr3t/s/ab/', page: 'index.html', load: 0, painted: true, errors: [], console: [], text: '' },
}
// a 1×1 PNG
const png = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg=='

async function openPane(shot: string) {
  const backend = new FakeBackend()
  backend.chats = [summary('c1', 'Site', ws, '2026-11-26T10:00:00Z')]
  backend.previewPage = site
  backend.previewShot = shot
  const store = new AppStore({ backend, requestFrame: new FakeFrames().request })
  const preview = new PreviewStore(backend, store)
  preview.start()
  render(
    <StoreContext.Provider value={store}>
      <PreviewContext.Provider value={preview}>
        <App />
      </PreviewContext.Provider>
    </StoreContext.Provider>,
  )
  await act(() => store.start())
  await act(async () => {
    fireEvent.keyDown(window, { key: 'p', code: 'KeyP', altKey: true })
  })
  await screen.findByTestId('preview-frame')
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
