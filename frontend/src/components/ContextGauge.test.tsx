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
    expect(screen.getByTestId('context-gauge').textContent).toBe('Context: 6K of 8K tokens (75%)')
    expect(screen.getByRole('meter').getAttribute('aria-valuenow')).toBe('6144')
  })

  it('puts the prompt and answer speeds of the last answer beside it, and the context the memory of the machine chose in its hover', async () => {
    const backend = new FakeBackend()
    backend.budget = { ...backend.budget, numCtx: 8192, numCtxWhy: '8K tokens: the most the 5 GB of memory this machine has free holds for qwen3:4b with room to spare' }
    const frames = new FakeFrames()
    const store = new AppStore({ backend, requestFrame: frames.request, runningToolIdsInDom: () => [] })
    backend.onBatch((evs) => store.ingest(evs))
    render(
      <StoreContext.Provider value={store}>
        <ContextGauge />
      </StoreContext.Provider>,
    )
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
    // before any answer: the size and why
    expect(screen.getByTestId('context-gauge').textContent).toBe('Context 8K tokens: the most the 5 GB of memory this machine has free holds for qwen3:4b with room to spare.')
    act(() => {
      backend.emit([
        { v: 1, seq: 1, chatId: 'c1', runId: 'r1', messageId: 'a1', at: '', type: 'message.completed', doneReason: 'stop',
          usage: { numCtx: 8192, contextTokens: 2048, promptTokens: 1700, promptMs: 2000, promptTokensPerSec: 850, firstTokenMs: 2140, evalTokens: 140, evalMs: 10000, tokensPerSec: 14 } },
      ])
      frames.drain()
    })
    expect(screen.getByTestId('context-speeds').textContent).toBe('first token 2.1 s · prompt 850 tok/s · answer 14 tok/s')
    expect(screen.getByTestId('context-gauge').getAttribute('title')).toContain('Context 8K tokens: the most the 5 GB')
    act(() => {
      backend.emit([
        { v: 1, seq: 2, chatId: 'c1', runId: 'r2', messageId: 'a2', at: '', type: 'message.completed', doneReason: 'stop',
          usage: { numCtx: 8192, contextTokens: 2500, promptTokens: 300, promptMs: 1000, promptTokensPerSec: 29207.4, firstTokenMs: 420, evalTokens: 120, evalMs: 10000, tokensPerSec: 4.24 } },
      ])
      frames.drain()
    })
    expect(screen.getByTestId('context-speeds').textContent).toBe('first token 420 ms · prompt 29,207 tok/s · answer 4.2 tok/s')
    // the hover holds the chat's history of speeds
    expect(screen.getByTestId('context-gauge').getAttribute('title')).toContain(
      'Answer 1: first token 2.1 s · prompt 850 tok/s · answer 14 tok/s\nAnswer 2: first token 420 ms · prompt 29,207 tok/s · answer 4.2 tok/s',
    )
  })
})
