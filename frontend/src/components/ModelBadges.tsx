import type { ReactNode } from 'react'
import type { ModelInfo } from '../backend'
import { tokenCount } from '../tokenCount'

/** What a model can do: tools, thinking, images, its context; then what is given after them. */
export function ModelBadges({ model, children }: { model: ModelInfo; children?: ReactNode }) {
  return (
    <span className="badges">
      {model.tools ? <span className="badge ok">tools</span> : <span className="badge err">no tools</span>}
      {model.thinking && <span className="badge info">thinking</span>}
      {model.vision && <span className="badge info">vision</span>}
      {model.contextLength > 0 && (
        <span className="badge muted" title="The most this model reads at once: its context">
          {tokenCount(model.contextLength)} tokens
        </span>
      )}
      {children}
    </span>
  )
}
