import { render, screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import type { MessageView } from '../state/chatReducer'
import { Message, stepStatistics } from './Message'

function answer(over: Partial<MessageView>): MessageView {
  return {
    id: 'm1',
    role: 'assistant',
    runId: 'r1',
    content: '',
    thinking: '',
    thinkingStartedAt: null,
    thinkingMs: null,
    complete: true,
    doneReason: 'stop',
    usage: { promptTokens: 12, evalTokens: 1, evalMs: 5, tokensPerSec: 200 },
    local: false,
    ...over,
  }
}

describe('Message', () => {
  it('says the model gave an empty answer instead of its token count', () => {
    render(<Message message={answer({ empty: true })} />)
    expect(screen.getByTestId('empty-answer').textContent).toBe('The model gave an empty answer')
    expect(screen.queryByText(/1 tokens/)).toBeNull()
  })
})

describe('the instructions message', () => {
  it('says where the instructions came from', () => {
    render(<Message message={answer({ role: 'system', content: 'Use tabs.', instructions: 'AGENTS.md' })} />)
    expect(screen.getByTestId('message-instructions').textContent).toMatch(/^Project instructions \(AGENTS\.md\) sent to the model/)
  })
})

describe('a step’s statistics', () => {
  it('say the time the answer was written in as such, not as a wait, and the prompt as the server counted it where the gauge counts otherwise', () => {
    const usage = { promptTokens: 465, evalTokens: 251, evalMs: 463, tokensPerSec: 542, numCtx: 16384, contextTokens: 2253 }
    expect(stepStatistics(answer({ usage })).join(' · ')).toBe("251 tokens written in 0.5 s · 542 tok/s · 465 prompt tokens by the server's count")
    // one count: nothing to tell apart
    expect(stepStatistics(answer({ usage: { ...usage, contextTokens: 716 } })).join(' · ')).toBe('251 tokens written in 0.5 s · 542 tok/s · 465 prompt tokens')
  })
})
