import { Fragment, type ReactNode } from 'react'
import type { ModelInfo } from '../backend'
import { tokenCount } from '../tokenCount'

/**
 * What a model can do: tools, thinking, images, its context; then what is given after them. A
 * screen reader hears them apart ("tools, thinking, 32K tokens"): the commas are for it alone.
 */
export function ModelBadges({ model, children }: { model: ModelInfo; children?: ReactNode }) {
  const badges: ReactNode[] = [
    model.tools ? <span className="badge ok">tools</span> : <span className="badge err">no tools</span>,
    model.thinking && <span className="badge info">thinking</span>,
    model.vision && <span className="badge info">vision</span>,
    model.contextLength > 0 && (
      <span className="badge muted" title="The most this model reads at once: its context">
        {tokenCount(model.contextLength)} tokens
      </span>
    ),
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
