// The context the app gives a model, as the window says it wherever it is shown.

import type { ModelInfo, PromptBudget } from '../backend'
import { sameModel } from './appState'

/** The context a model is given, and the most it can read at once; both 0 when unknown. */
export interface ContextGiven {
  given: number
  max: number
}

/**
 * The context the model is given in the open chat, and its own length: the budget's numCtx
 * where the Go side said it (agentloop.Budget: the settings' cap, the model's length and this
 * machine's memory decide it, and every request is sent with it), else the model's length. The
 * header and the context gauge thereby say one number for one thing.
 */
export function contextGiven(model: Pick<ModelInfo, 'name' | 'contextLength'>, budget?: Pick<PromptBudget, 'model' | 'numCtx'>): ContextGiven {
  const max = Math.max(0, model.contextLength)
  const fromBudget = budget && sameModel(budget.model, model.name) && budget.numCtx > 0 ? budget.numCtx : 0
  if (!fromBudget) return { given: max, max }
  return { given: max > 0 ? Math.min(fromBudget, max) : fromBudget, max }
}
