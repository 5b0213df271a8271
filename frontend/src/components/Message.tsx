import { memo, useId, useState } from 'react'
import type { MessageView } from '../state/chatReducer'
import { Markdown } from '../markdown/Markdown'
import { ReasoningBlock } from './ReasoningBlock'
import { Icon } from './icons'
import { UnbrokenParts } from './UnbrokenParts'
import { tokenCount, tokenRate } from '../tokenCount'

/** A data URL for an image's base64, its type read from its first bytes. */
export function imageURL(b64: string): string {
  const type = b64.startsWith('/9j/')
    ? 'image/jpeg'
    : b64.startsWith('R0lG')
      ? 'image/gif'
      : b64.startsWith('UklG')
        ? 'image/webp'
        : 'image/png'
  return `data:${type};base64,${b64}`
}

/**
 * What an answer cost, or that it was empty. `emptySaidLater`: what follows (the model asked
 * again and answering nothing again, or the run's last word) says it, so this one does not.
 */
export function UsageLine({ message, emptySaidLater = false }: { message: MessageView; emptySaidLater?: boolean }) {
  if (message.complete && message.empty) {
    if (emptySaidLater) return null
    return (
      <div className="usage empty-answer" data-testid="empty-answer">
        The model gave an empty answer
      </div>
    )
  }
  const parts = stepStatistics(message)
  if (parts.length === 0) return null
  return <StepStatistics parts={parts} />
}

/**
 * What one step of a run cost: what it wrote and in how long (the server's time generating, not
 * a wait: the wait is the gauge's "first token"), speed, its prompt, how it ended; none while it
 * streams. The prompt is the server's count, said so where the gauge counts it otherwise (the
 * larger of the server's count and the app's estimate, see agentloop's ContextTokens).
 */
export function stepStatistics(message: Pick<MessageView, 'usage' | 'complete' | 'doneReason' | 'thinkingMs'>): string[] {
  const u = message.usage
  if (!u || !message.complete) return []
  const parts: string[] = []
  const written = u.evalMs ? `written in ${seconds(u.evalMs)}` : ''
  if (u.evalTokens) parts.push([`${tokenCount(u.evalTokens)} tokens`, written].filter(Boolean).join(' '))
  else if (written) parts.push(written)
  if (u.tokensPerSec) parts.push(tokenRate(u.tokensPerSec))
  if (message.thinkingMs) parts.push(`${seconds(message.thinkingMs)} thinking`)
  if (u.promptTokens) parts.push(`${tokenCount(u.promptTokens)} prompt tokens${gaugeCountsOtherwise(u) ? " by the server's count" : ''}`)
  if (message.doneReason && message.doneReason !== 'stop') parts.push(`ended: ${message.doneReason}`)
  return parts
}

function seconds(ms: number): string {
  return `${(ms / 1000).toFixed(1)} s`
}

/** Whether the context gauge counts this step's prompt as other than the server's promptTokens. */
function gaugeCountsOtherwise(u: NonNullable<MessageView['usage']>): boolean {
  if (!u.contextTokens || !u.promptTokens) return false
  const server = u.promptTokens + (u.evalTokens ?? 0)
  return tokenCount(u.numCtx ? Math.min(server, u.numCtx) : server) !== tokenCount(u.contextTokens)
}

/**
 * A step's statistics behind a small button: shown while the pointer is over it or it has the
 * focus (and kept open by a click), read by a screen reader as the button's description.
 */
function StepStatistics({ parts }: { parts: string[] }) {
  const id = useId()
  const [pinned, setPinned] = useState(false)
  return (
    <div className={`usage step-stats${pinned ? ' pinned' : ''}`} data-testid="usage">
      <button
        type="button"
        className="step-stats-button"
        aria-label="Statistics of this step"
        aria-describedby={id}
        aria-expanded={pinned}
        onClick={() => setPinned((p) => !p)}
        onKeyDown={(e) => {
          if (e.key === 'Escape' && pinned) {
            e.stopPropagation()
            setPinned(false)
          }
        }}
      >
        <Icon name="info" size={13} />
      </button>
      <span className="step-stats-text" role="tooltip" id={id} data-testid="step-stats">
        <UnbrokenParts parts={parts} />
      </span>
    </div>
  )
}

/**
 * One message of the chat: the user's text, or the model's thought and answer. `from` > 0 shows
 * only the end of a long answer: its Markdown blocks from the one holding that offset on.
 */
export const Message = memo(function Message({
  message,
  from = 0,
  emptySaidLater = false,
}: {
  message: MessageView
  from?: number
  emptySaidLater?: boolean
}) {
  if (message.role === 'system' && message.summary) {
    return (
      <details className="message instructions summary" data-testid="message-summary" data-message-id={message.id}>
        <summary>Earlier messages no longer fit the model's context: it summarized them, and reads this summary instead</summary>
        <Markdown text={message.content} />
      </details>
    )
  }
  if (message.role === 'system') {
    return (
      <details className="message instructions" data-testid="message-instructions" data-message-id={message.id}>
        <summary>Project instructions ({message.instructions || 'AGENTS.md'}) sent to the model with every message</summary>
        <Markdown text={message.content} />
      </details>
    )
  }
  if (message.role === 'user') {
    return (
      <div className="message user" data-testid="message-user" data-message-id={message.id}>
        {message.images && message.images.length > 0 && (
          <div className="attached-images">
            {message.images.map((b64, i) => (
              <img key={i} src={imageURL(b64)} alt={`Image ${i + 1} sent with the message`} data-testid="message-image" />
            ))}
          </div>
        )}
        <div className="bubble">{message.content}</div>
        {message.files && message.files.length > 0 && (
          <div className="attached-files">
            {message.files.map((f) => (
              <details key={f.path} className="attached-file" data-testid="message-file">
                <summary>
                  @{f.path} · {f.content.split('\n').length} lines
                </summary>
                <pre>{f.content}</pre>
              </details>
            ))}
          </div>
        )}
      </div>
    )
  }
  const thinkingLive = !message.complete && !message.content && message.thinkingMs === null
  return (
    <div className="message assistant" data-testid="message-assistant" data-message-id={message.id}>
      {message.thinking && from === 0 && (
        <ReasoningBlock text={message.thinking} ms={message.thinkingMs} live={thinkingLive} since={message.thinkingStartedAt} />
      )}
      {message.content && <Markdown text={message.content} from={from} />}
      <UsageLine message={message} emptySaidLater={emptySaidLater} />
    </div>
  )
})
