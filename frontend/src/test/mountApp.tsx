import { act, render } from '@testing-library/react'
import { App } from '../App'
import { FakeBackend, FakeFrames } from '../fakeBackend'
import { AppStore } from '../state/store'
import { StoreContext } from '../state/useAppState'

/** Renders the whole window on a FakeBackend that `prepare` sets up, and starts its store. */
export async function mountApp(prepare: (b: FakeBackend) => void = () => {}) {
  const backend = new FakeBackend()
  prepare(backend)
  const frames = new FakeFrames()
  const store = new AppStore({ backend, requestFrame: frames.request })
  render(
    <StoreContext.Provider value={store}>
      <App />
    </StoreContext.Provider>,
  )
  await act(() => store.start())
  return { backend, frames, store }
}
