import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { contextGiven } from '../state/contextGiven'
import { ModelBadges } from './ModelBadges'

describe('a model’s badges', () => {
  it('are heard apart by a screen reader: the button they are in is named with commas between them, one text, no badge heard twice', () => {
    const model = { name: 'qwen3:4b', size: 2.5e9, parameterSize: '4B', family: 'qwen3', tools: true, thinking: true, contextLength: 32768 }
    render(
      <button type="button">
        {model.name} <ModelBadges model={model} />
      </button>,
    )
    expect(screen.getByRole('button', { name: 'qwen3:4b tools, thinking, 32K tokens' })).toBeTruthy()
  })
})

describe('the context a model is given', () => {
  const model = { name: 'qwen3:4b', size: 2.5e9, parameterSize: '4B', family: 'qwen3', tools: true, thinking: true, contextLength: 32768 }

  it('is the one the app sends where it is less than the model’s, heard with the model’s', () => {
    const given = contextGiven(model, { model: 'qwen3:4b', numCtx: 16384 })
    expect(given).toEqual({ given: 16384, max: 32768 })
    render(
      <button type="button">
        {model.name} <ModelBadges model={model} context={given} />
      </button>,
    )
    const badge = screen.getByTitle('This chat gives the model 16K of the 32K tokens it can read at once')
    // what is seen, and what is heard
    expect(badge.textContent).toBe('16K tokens')
    expect(screen.getByRole('button', { name: 'qwen3:4b tools, thinking, 16K of 32K tokens' })).toBeTruthy()
  })

  it('is the model’s own where the app gives it all, or says nothing yet', () => {
    expect(contextGiven(model, { model: 'qwen3:4b', numCtx: 32768 })).toEqual({ given: 32768, max: 32768 })
    expect(contextGiven(model, undefined)).toEqual({ given: 32768, max: 32768 })
    expect(contextGiven(model, { model: 'llama3.2', numCtx: 4096 })).toEqual({ given: 32768, max: 32768 })
  })
})
