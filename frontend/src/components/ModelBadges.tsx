import { Fragment, type ReactNode } from 'react'
import type { ModelInfo } from '../backend'
import type { ContextGiven } from '../state/contextGiven'
import { tokenCount } from '../tokenCount'

/**
 * What a model can do: tools, thinking, images, its context (the one `context` says it is given,
 * else its own); then what is given after them. A screen reader hears them as one text, "tools,
 * thinking, 16K of 32K tokens" (badgeWords), and not the badges: WebKit joins the texts of
 * boxes side by side with a space or none, never with the commas that keep them apart.
 */
export function ModelBadges({ model, context, children }: { model: ModelInfo; context?: ContextGiven; children?: ReactNode }) {
  // the model's own length where no chat gives it less (a model of the menu's list)
  const shown = context ?? { given: model.contextLength, max: model.contextLength }
  const badges: ReactNode[] = [
    model.tools ? (
      <span className="badge ok" aria-hidden="true">
        tools
      </span>
    ) : (
      <span className="badge err" aria-hidden="true">
        no tools
      </span>
    ),
    model.thinking && (
      <span className="badge info" aria-hidden="true">
        thinking
      </span>
    ),
    model.vision && (
      <span className="badge info" aria-hidden="true">
        vision
      </span>
    ),
    shown.given > 0 && <ContextBadge context={shown} />,
  ].filter(Boolean)
  return (
    <span className="badges">
      <span className="visually-hidden">{badgeWords(model, shown)}</span>
      {badges.map((b, i) => (
        <Fragment key={i}>{b}</Fragment>
      ))}
      {children}
    </span>
  )
}

/** The badges as they are heard: "tools, thinking, 16K of 32K tokens". */
export function badgeWords(model: Pick<ModelInfo, 'tools' | 'thinking' | 'vision'>, { given, max }: ContextGiven): string {
  const context = given > 0 && (max > given ? `${tokenCount(given)} of ${tokenCount(max)} tokens` : `${tokenCount(given)} tokens`)
  return [model.tools ? 'tools' : 'no tools', model.thinking && 'thinking', model.vision && 'vision', context].filter(Boolean).join(', ')
}

/**
 * The context given (contextGiven): "16K tokens", hovered as "16K of 32K tokens" where the model
 * could read more.
 */
function ContextBadge({ context: { given, max } }: { context: ContextGiven }) {
  const less = max > given
  const title = less
    ? `This chat gives the model ${tokenCount(given)} of the ${tokenCount(max)} tokens it can read at once`
    : 'The most this model reads at once: its context'
  return (
    <span className="badge muted" title={title} aria-hidden="true">
      {tokenCount(given)} tokens
    </span>
  )
}
