import { act, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { Usage } from '../backend'
import { FakeBackend } from '../fakeBackend'
import { renderWithStore } from '../test/renderWithStore'
import { ContextGauge } from './ContextGauge'

/** The gauge on a store fed by backend; answered() delivers the next completed answer of chat c1, with usage. */
function mountGauge(backend: FakeBackend) {
  const { store, frames } = renderWithStore(<ContextGauge />, backend)
  backend.onBatch((evs) => store.ingest(evs))
  let seq = 0
  const answered = (usage: Usage) =>
    act(() => {
      seq++
      backend.emit([
        { v: 1, seq, chatId: 'c1', runId: `r${seq}`, messageId: `a${seq}`, at: '', type: 'message.completed', doneReason: 'stop', usage },
      ])
      frames.drain()
    })
  return { store, answered }
}

describe('ContextGauge', () => {
  it('shows how full the context was at the last answer, and renders once per change', async () => {
    const { store, answered } = mountGauge(new FakeBackend())
    await act(() => store.selectChat('c1'))
    answered({ numCtx: 8192, contextTokens: 6144 })
    expect(screen.getByTestId('context-gauge').textContent).toBe('Context: 6K of 8K tokens (75%)')
    expect(screen.getByRole('meter').getAttribute('aria-valuenow')).toBe('6144')
  })

  it('puts the prompt and answer speeds of the last answer beside it, and the context the memory of the machine chose in its hover', async () => {
    const backend = new FakeBackend()
    backend.budget = { ...backend.budget, numCtx: 8192, numCtxWhy: '8K tokens: the most the 5 GB of memory this machine has free holds for qwen3:4b with room to spare' }
    const { store, answered } = mountGauge(backend)
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
    // before any answer: the size and why
    expect(screen.getByTestId('context-gauge').textContent).toBe('Context 8K tokens: the most the 5 GB of memory this machine has free holds for qwen3:4b with room to spare.')
    answered({ numCtx: 8192, contextTokens: 2048, promptTokens: 1700, promptMs: 2000, promptTokensPerSec: 850, firstTokenMs: 2140, evalTokens: 140, evalMs: 10000, tokensPerSec: 14 })
    expect(screen.getByTestId('context-speeds').textContent).toBe('first token 2.1 s · prompt 850 tok/s · answer 14 tok/s')
    expect(screen.getByTestId('context-gauge').getAttribute('title')).toContain('Context 8K tokens: the most the 5 GB')
    answered({ numCtx: 8192, contextTokens: 2500, promptTokens: 300, promptMs: 1000, promptTokensPerSec: 29207.4, firstTokenMs: 420, evalTokens: 120, evalMs: 10000, tokensPerSec: 4.24 })
    expect(screen.getByTestId('context-speeds').textContent).toBe('first token 420 ms · prompt 29,207 tok/s · answer 4.2 tok/s')
    // the hover holds the chat's history of speeds
    expect(screen.getByTestId('context-gauge').getAttribute('title')).toContain(
      'Answer 1: first token 2.1 s · prompt 850 tok/s · answer 14 tok/s\nAnswer 2: first token 420 ms · prompt 29,207 tok/s · answer 4.2 tok/s',
    )
  })

  // A chat open with one answer of a 16K context, the gauge saying so.
  const afterOneAnswerOf16K = async () => {
    const backend = new FakeBackend()
    backend.budget = { ...backend.budget, numCtx: 16384 }
    const { store, answered } = mountGauge(backend)
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
    answered({ numCtx: 16384, contextTokens: 2253 })
    expect(screen.getByTestId('context-gauge').textContent).toBe('Context: 2.2K of 16K tokens (14%)')
    return { backend, store }
  }

  it('follows the context the next message gets as soon as a cap is saved, not at the next answer', async () => {
    const { backend, store } = await afterOneAnswerOf16K()
    // the user saves "Longest context" 8192: the budget is asked again and the gauge says it
    backend.budget = { ...backend.budget, numCtx: 8192 }
    await act(() => store.saveSettings(store.getState().config!.saved))
    await act(() => store.loadBudget())
    expect(screen.getByTestId('context-gauge').textContent).toBe('Context: 2.2K of 8K tokens (28%)')
    expect(screen.getByRole('meter').getAttribute('aria-valuemax')).toBe('8192')
    expect(screen.getByTestId('context-gauge').getAttribute('title')).toContain('The last answer had a context of 16K tokens.')
  })

  it('follows the model switched to at once, with the context that model is given', async () => {
    const { backend, store } = await afterOneAnswerOf16K()
    backend.budget = { ...backend.budget, numCtx: 4096 }
    await act(() => store.setModel('gemma3:1b'))
    await act(() => store.loadBudget())
    expect(screen.getByTestId('context-gauge').textContent).toBe('Context: 2.2K of 4K tokens (55%)')
  })
})
