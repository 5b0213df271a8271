import type { ChatState } from '../state/chatReducer'
import { useAppState } from '../state/useAppState'

/** How full the model's context was at the chat's latest answer, or null when no answer says. */
export function contextUse(chat: ChatState | undefined): { used: number; size: number } | null {
  if (!chat) return null
  for (let i = chat.timeline.length - 1; i >= 0; i--) {
    const e = chat.timeline[i]
    if (e.kind !== 'message') continue
    const u = chat.messages[e.id]?.usage
    if (u?.numCtx && u.contextTokens) return { used: Math.min(u.contextTokens, u.numCtx), size: u.numCtx }
  }
  return null
}

function tokens(n: number): string {
  return n >= 1000 ? `${(n / 1000).toFixed(n >= 10000 ? 0 : 1)}k` : String(n)
}

/** A gauge of how much of the model's context the conversation takes, above the composer. */
export function ContextGauge() {
  // the chat is selected, not the figures: a selector must return what the store holds
  const chat = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId] : undefined))
  const use = contextUse(chat)
  if (!use) return null
  const pct = Math.round((use.used / use.size) * 100)
  const tone = pct >= 90 ? 'err' : pct >= 70 ? 'warn' : 'ok'
  const label = `Context: ${tokens(use.used)} of ${tokens(use.size)} tokens (${pct}%)`
  return (
    <div className={`context-gauge ${tone}`} data-testid="context-gauge" title="How much of the model's context the conversation took at the last answer. Older turns are left out when it is full.">
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
      <span className="context-label">{label}</span>
    </div>
  )
}
