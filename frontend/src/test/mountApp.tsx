import { act } from '@testing-library/react'
import { App } from '../App'
import { FakeBackend } from '../fakeBackend'
import { renderWithStore } from './renderWithStore'

/** Renders the whole window on a FakeBackend that `prepare` sets up, and starts its store. */
export async function mountApp(prepare: (b: FakeBackend) => void = () => {}) {
  const backend = new FakeBackend()
  prepare(backend)
  const { frames, store } = renderWithStore(<App />, backend)
  await act(() => store.start())
  return { backend, frames, store }
}
