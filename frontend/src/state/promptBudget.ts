// The composer's estimate of a draft's tokens, made with the parameters the Go side sends in
// the budget (agentloop.Budget: charsPerToken, perMessageTokens), so that it is Go's estimate
// (agentloop.EstimateTokens; a Go test holds the two equal). It is computed here, per keystroke,
// rather than asked for: a draft over maxTokens is said while the user types or pastes, with no
// round trip per character. A draft over it would be refused by Send.

import type { PromptBudget } from '../backend'
import { tokenCount, tokenCounts } from '../tokenCount'

/** Bytes of s in UTF-8, without encoding it. */
export function utf8Length(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) n += 1
    else if (c < 0x800) n += 2
    else if (c >= 0xd800 && c < 0xdc00 && i + 1 < s.length) {
      n += 4 // a surrogate pair: one code point of four bytes
      i++
    } else n += 3
  }
  return n
}

export function estimateTokens(text: string, budget: Pick<PromptBudget, 'charsPerToken' | 'perMessageTokens'>): number {
  return Math.floor(utf8Length(text) / budget.charsPerToken) + budget.perMessageTokens
}

/** Why a draft cannot be sent to the model, or '' when it fits. */
export function overBudget(text: string, budget: PromptBudget | undefined): string {
  if (!budget || !text) return ''
  const tokens = estimateTokens(text, budget)
  if (tokens <= budget.maxTokens) return ''
  if (tokens > budget.numCtx) {
    const [size, numCtx] = tokenCounts(tokens, budget.numCtx)
    return `This message is about ${size} tokens; ${budget.model}'s context holds ${numCtx}. Shorten it or attach less.`
  }
  const [size, left] = tokenCounts(tokens, budget.maxTokens)
  return `This message is about ${size} tokens; ${budget.model}'s context holds ${tokenCount(budget.numCtx)}, of which about ${left} are left for a message once the instructions and the room for the answer are kept. Shorten it or attach less.`
}
