import { describe, expect, it } from 'vitest'
import { act } from '@testing-library/react'
import { App } from '../App'
import { FakeBackend } from '../fakeBackend'
import { renderWithStore } from '../test/renderWithStore'

// Emoji and other pictographs outside the Basic Multilingual Plane need an emoji font, which the
// desktop webview may not have: they would render as empty boxes.
const pictograph = /[\u{1F000}-\u{1FAFF}]/u

describe('icons', () => {
  it('draws the header and sidebar icons as SVG, never as emoji characters', async () => {
    const backend = new FakeBackend()
    backend.chats = [
      { id: 'c1', title: 'A chat', model: 'qwen3:4b', workspace: '/w', createdAt: '2025-01-02T00:00:00Z', updatedAt: '2025-01-02T00:00:00Z', messageCount: 0, phase: 'idle' },
    ]
    const { container, getByTestId, getByLabelText, store } = renderWithStore(<App />, backend)
    await act(() => store.start())
    expect(container.textContent).not.toMatch(pictograph)
    expect(getByTestId('workspace-button').querySelector('svg')).toBeTruthy()
    expect(getByLabelText('Settings').querySelector('svg')).toBeTruthy()
    expect(getByLabelText('Delete A chat').querySelector('svg')).toBeTruthy()
    expect(getByLabelText('Rename A chat').querySelector('svg')).toBeTruthy()
  })
})
