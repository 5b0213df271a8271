import { Fragment, type ReactNode } from 'react'
import type { ModelInfo } from '../backend'
import type { ContextGiven } from '../state/contextGiven'
import { tokenCount } from '../tokenCount'

/**
 * What a model can do: tools, thinking, images, its context (the one `context` says it is given,
 * else its own); then what is given after them. A screen reader hears them apart ("tools,
 * thinking, 32K tokens"): the commas are for it alone.
 */
export function ModelBadges({ model, context, children }: { model: ModelInfo; context?: ContextGiven; children?: ReactNode }) {
  // the model's own length where no chat gives it less (a model of the menu's list)
  const shown = context ?? { given: model.contextLength, max: model.contextLength }
  const badges: ReactNode[] = [
    model.tools ? <span className="badge ok">tools</span> : <span className="badge err">no tools</span>,
    model.thinking && <span className="badge info">thinking</span>,
    model.vision && <span className="badge info">vision</span>,
    shown.given > 0 && <ContextBadge context={shown} />,
  ].filter(Boolean)
  return (
    <span className="badges">
      {badges.map((b, i) => (
        <Fragment key={i}>
          {i > 0 && <span className="visually-hidden">, </span>}
          {b}
        </Fragment>
      ))}
      {children}
    </span>
  )
}

/**
 * The context given (contextGiven): "16K tokens", heard and hovered as "16K of 32K tokens" where
 * the model could read more.
 */
function ContextBadge({ context: { given, max } }: { context: ContextGiven }) {
  const less = max > given
  const title = less
    ? `This chat gives the model ${tokenCount(given)} of the ${tokenCount(max)} tokens it can read at once`
    : 'The most this model reads at once: its context'
  return (
    <span className="badge muted" title={title}>
      {tokenCount(given)}
      {less && <span className="visually-hidden"> of {tokenCount(max)}</span>} tokens
    </span>
  )
}
