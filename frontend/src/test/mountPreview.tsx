// The whole window with the preview's store (and, if asked, the development servers') on the
// in-memory backend, as the tests of the Preview pane mount it.

import { act, fireEvent, render, screen } from '@testing-library/react'
import { App } from '../App'
import type { PreviewPage } from '../backend'
import { FakeBackend, FakeFrames } from '../fakeBackend'
import { DevServerStore } from '../state/devServers'
import { PreviewStore } from '../state/preview'
import { AppStore } from '../state/store'
import { WindowStores } from '../WindowStores'
import { summary } from './mountApp'

/** A folder's one page as the preview serves it, with no errors reported. */
export function onePageSite(ws: string): PreviewPage {
  return {
    url: 'http://127.0.0.1:4000/s3cr3t/s/ab/',
    origin: 'http://127.0.0.1:4000',
    workspace: ws,
    page: 'index.html',
    pages: ['index.html'],
    report: { workspace: ws, url: 'http://127.0.0.1:4000/s3cr3t/s/ab/', page: 'index.html', load: 0, painted: true, errors: [], console: [], text: '' },
  }
}

/**
 * The window mounted on a backend with one chat in the folder of page, which the preview
 * serves; prepare sets the backend up further before the window starts.
 */
export async function mountPreview(page: PreviewPage, { servers = false, prepare }: { servers?: boolean; prepare?: (b: FakeBackend) => void } = {}) {
  const backend = new FakeBackend()
  backend.chats = [summary('c1', 'Site', page.workspace, '2026-11-26T10:00:00Z')]
  backend.previewPage = page
  prepare?.(backend)
  const store = new AppStore({ backend, requestFrame: new FakeFrames().request })
  const preview = new PreviewStore(backend, store)
  preview.start()
  const serverStore = servers ? new DevServerStore(backend) : undefined
  serverStore?.start()
  render(
    <WindowStores store={store} preview={preview} servers={serverStore}>
      <App />
    </WindowStores>,
  )
  await act(() => store.start())
  return { backend, store, preview }
}

/** Opens the Preview pane with Alt+P and waits for its frame. */
export async function openPreviewPane() {
  await act(async () => {
    fireEvent.keyDown(window, { key: 'p', code: 'KeyP', altKey: true })
  })
  await screen.findByTestId('preview-frame')
}
