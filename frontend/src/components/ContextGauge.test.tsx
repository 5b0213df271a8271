import { act, render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { FakeBackend, FakeFrames } from '../fakeBackend'
import { AppStore } from '../state/store'
import { StoreContext } from '../state/useAppState'
import { ContextGauge } from './ContextGauge'

describe('ContextGauge', () => {
  it('shows how full the context was at the last answer, and renders once per change', async () => {
    const backend = new FakeBackend()
    const frames = new FakeFrames()
    const store = new AppStore({ backend, requestFrame: frames.request, runningToolIdsInDom: () => [] })
    backend.onBatch((evs) => store.ingest(evs))
    render(
      <StoreContext.Provider value={store}>
        <ContextGauge />
      </StoreContext.Provider>,
    )
    await act(() => store.selectChat('c1'))
    act(() => {
      backend.emit([
        { v: 1, seq: 1, chatId: 'c1', runId: 'r1', messageId: 'a1', at: '', type: 'message.completed', doneReason: 'stop', usage: { numCtx: 8192, contextTokens: 6144 } },
      ])
      frames.drain()
    })
    expect(screen.getByTestId('context-gauge').textContent).toBe('Context: 6.1k of 8.2k tokens (75%)')
    expect(screen.getByRole('meter').getAttribute('aria-valuenow')).toBe('6144')
  })
})
