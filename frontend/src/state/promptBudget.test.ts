import { describe, expect, it } from 'vitest'
import { overBudget } from './promptBudget'

const budget = { model: 'm', numCtx: 16384, maxTokens: 12083, charsPerToken: 1, perMessageTokens: 0 }

describe('a draft over the room left for a message', () => {
  it('never reads the same size as the room it is refused for: both are said exactly then', () => {
    expect(overBudget('a'.repeat(12288), budget)).toBe(
      "This message is about 12,288 tokens; m's context holds 16K, of which about 12,083 are left for a message once the instructions and the room for the answer are kept. Shorten it or attach less.",
    )
    expect(overBudget('a'.repeat(16500), { ...budget, maxTokens: 12000 })).toBe(
      "This message is about 16,500 tokens; m's context holds 16,384. Shorten it or attach less.",
    )
  })

  it('says sizes that read apart in K, as everywhere else', () => {
    expect(overBudget('a'.repeat(14000), budget)).toContain('about 14K tokens')
    expect(overBudget('a'.repeat(14000), budget)).toContain('about 12K are left')
  })
})
