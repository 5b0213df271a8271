import type { Usage } from '../backend'
import type { ChatState } from '../state/chatReducer'
import { contextGiven } from '../state/contextGiven'
import { budgetKey, findModel, headerModel } from '../state/store'
import { useAppState } from '../state/useAppState'
import { tokenCount, tokenRate } from '../tokenCount'
import { UnbrokenParts } from './UnbrokenParts'

/** The usage of the chat's latest answer that says how full the context was, or null. */
function latestUsage(chat: ChatState | undefined): Usage | null {
  if (!chat) return null
  for (let i = chat.timeline.length - 1; i >= 0; i--) {
    const e = chat.timeline[i]
    if (e.kind !== 'message') continue
    const u = chat.messages[e.id]?.usage
    if (u?.numCtx && u.contextTokens) return u
  }
  return null
}

/** The speeds of the chat's answers that say them, oldest first, one line each (the gauge's hover). */
export function speedHistory(chat: ChatState | undefined): string[] {
  if (!chat) return []
  const lines: string[] = []
  for (const e of chat.timeline) {
    if (e.kind !== 'message') continue
    const u = chat.messages[e.id]?.usage
    const rates = u ? speeds(u) : ''
    if (rates) lines.push(`Answer ${lines.length + 1}: ${rates}`)
  }
  return lines
}

/**
 * How full the context the next message gets would be with the conversation as the chat's latest
 * answer counted it, or null when no answer says. The size is `given` (contextGiven: the budget
 * every request is now sent with, so a cap saved or a model switched shows at once, as the header
 * says it); without one, the context that answer had. `answered` is the context that answer had.
 */
export function contextUse(chat: ChatState | undefined, given = 0): { used: number; size: number; answered: number } | null {
  const u = latestUsage(chat)
  if (!u?.numCtx || !u.contextTokens) return null
  const size = given > 0 ? given : u.numCtx
  return { used: Math.min(u.contextTokens, size), size, answered: u.numCtx }
}

/** A wait as it reads: "350 ms", "1.2 s", "14 s". */
function duration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`
  return ms < 10000 ? `${(ms / 1000).toFixed(1)} s` : `${Math.round(ms / 1000)} s`
}

/** The speeds of an answer: "first token 1.2 s · prompt 850 tok/s · answer 14 tok/s" (what the loop measured and the server said). */
export function speeds(u: Usage): string {
  return speedParts(u).join(' · ')
}

function speedParts(u: Usage): string[] {
  const parts: string[] = []
  if (u.firstTokenMs) parts.push(`first token ${duration(u.firstTokenMs)}`)
  if (u.promptTokensPerSec) parts.push(`prompt ${tokenRate(u.promptTokensPerSec)}`)
  if (u.tokensPerSec) parts.push(`answer ${tokenRate(u.tokensPerSec)}`)
  return parts
}

/** A gauge of how much of the model's context the conversation takes, above the composer. */
export function ContextGauge() {
  // the chat is selected, not the figures: a selector must return what the store holds
  const chat = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId] : undefined))
  const budget = useAppState((s) => s.budgets[budgetKey(s)])
  const model = useAppState((s) => findModel(s.models, headerModel(s)))
  const why = budget?.numCtxWhy ?? ''
  const given = model ? contextGiven(model, budget).given : budget?.numCtx ?? 0
  const use = contextUse(chat, given)
  const usage = latestUsage(chat)
  if (!use) {
    // before the first answer, a context the machine's memory chose is said all the same
    return why ? (
      <div className="context-gauge ok" data-testid="context-gauge">
        <span className="context-label">Context {why}.</span>
      </div>
    ) : null
  }
  const pct = Math.round((use.used / use.size) * 100)
  const tone = pct >= 90 ? 'err' : pct >= 70 ? 'warn' : 'ok'
  const label = `Context: ${tokenCount(use.used)} of ${tokenCount(use.size)} tokens (${pct}%)`
  const rates = usage ? speedParts(usage) : []
  const title = [
    "How much of the context the next message gets the conversation takes, as the last answer counted it. Older turns are left out when it is full.",
    use.answered !== use.size && `The last answer had a context of ${tokenCount(use.answered)} tokens.`,
    why && `Context ${why}.`,
    ...speedHistory(chat).slice(-10),
  ]
    .filter(Boolean)
    .join('\n')
  return (
    <div className={`context-gauge ${tone}`} data-testid="context-gauge" title={title}>
      <div
        className="context-bar"
        role="meter"
        aria-label="Context used"
        aria-valuemin={0}
        aria-valuemax={use.size}
        aria-valuenow={use.used}
        aria-valuetext={label}
      >
        <span style={{ width: `${pct}%` }} />
      </div>
      <span className="context-label">
        <UnbrokenParts parts={['Context:', `${tokenCount(use.used)} of ${tokenCount(use.size)} tokens`, `(${pct}%)`]} between=" " />
      </span>
      {rates.length > 0 && (
        <span className="context-speeds" data-testid="context-speeds">
          <UnbrokenParts parts={rates} />
        </span>
      )}
    </div>
  )
}
