import { describe, expect, it } from 'vitest'
import { render, screen } from '@testing-library/react'
import { ModelBadges } from './ModelBadges'

describe('a model’s badges', () => {
  it('are heard apart by a screen reader: the button they are in is named with commas between them', () => {
    const model = { name: 'qwen3:4b', size: 2.5e9, parameterSize: '4B', family: 'qwen3', tools: true, thinking: true, contextLength: 32768 }
    render(
      <button type="button">
        {model.name} <ModelBadges model={model} />
      </button>,
    )
    expect(screen.getByRole('button').textContent).toBe('qwen3:4b tools, thinking, 32K tokens')
  })
})
