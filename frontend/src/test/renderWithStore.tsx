import type { ReactElement } from 'react'
import { render } from '@testing-library/react'
import { FakeBackend, FakeFrames } from '../fakeBackend'
import { AppStore } from '../state/store'
import { StoreContext } from '../state/useAppState'

/**
 * Renders ui inside the store over backend, as main.tsx does in the window, with animation
 * frames that run only when the test ticks or drains them.
 */
export function renderWithStore(ui: ReactElement, backend: FakeBackend = new FakeBackend()) {
  const frames = new FakeFrames()
  const store = new AppStore({ backend, requestFrame: frames.request })
  const rendered = render(<StoreContext.Provider value={store}>{ui}</StoreContext.Provider>)
  return { ...rendered, backend, frames, store }
}
