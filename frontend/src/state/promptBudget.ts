// The composer's estimate of a draft's tokens, the same the Go side applies before it stores a
// message (agentloop.EstimateTokens): UTF-8 bytes divided by charsPerToken, plus the template's
// markers of one message. A draft over the budget's maxTokens would be refused; the composer
// says so while the user types or pastes instead of after a round trip.

import type { PromptBudget } from '../backend'

/** The template's role markers around one message, in tokens (agentloop's perMessageTokens). */
const perMessageTokens = 4

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

export function estimateTokens(text: string, budget: Pick<PromptBudget, 'charsPerToken'>): number {
  const perToken = budget.charsPerToken > 0 ? budget.charsPerToken : 3.5
  return Math.floor(utf8Length(text) / perToken) + perMessageTokens
}

function thousands(n: number): string {
  return Math.round(n).toLocaleString('en-US')
}

/** Why a draft cannot be sent to the model, or '' when it fits. */
export function overBudget(text: string, budget: PromptBudget | undefined): string {
  if (!budget || !text) return ''
  const tokens = estimateTokens(text, budget)
  if (tokens <= budget.maxTokens) return ''
  if (tokens > budget.numCtx) {
    return `This message is about ${thousands(tokens)} tokens; ${budget.model}'s context holds ${thousands(budget.numCtx)}. Shorten it or attach less.`
  }
  return `This message is about ${thousands(tokens)} tokens; ${budget.model}'s context holds ${thousands(budget.numCtx)}, of which about ${thousands(budget.maxTokens)} are left for a message once the instructions and the room for the answer are kept. Shorten it or attach less.`
}
