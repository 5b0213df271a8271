import { afterEach, describe, expect, it, vi } from 'vitest'
import { screen } from '@testing-library/react'
import { mountApp, summary } from '../test/mountApp'
import { ItemBoundary } from './ItemBoundary'

// Which items of the transcript render, by id: every message and tool card renders inside its
// ItemBoundary, whose resetKey is the message or the card.
function countRenders() {
  const renders: string[] = []
  const render = ItemBoundary.prototype.render
  vi.spyOn(ItemBoundary.prototype, 'render').mockImplementation(function (this: ItemBoundary) {
    const key = this.props.resetKey as { id?: string } | undefined
    if (key?.id) renders.push(key.id)
    return render.call(this)
  })
  return renders
}

afterEach(() => vi.restoreAllMocks())

describe('the transcript while an answer streams', () => {
  it('renders only the streaming message again for a batch of its text, not the entries above it', async () => {
    const { emitPainted } = await mountApp([summary('c1', 'Snake', '/w', '2025-01-02T00:00:00Z')])
    emitPainted([
      { type: 'run.started', runId: 'r1' },
      { type: 'message.started', runId: 'r1', messageId: 'u1', role: 'user' },
      { type: 'text.delta', runId: 'r1', messageId: 'u1', text: 'make a snake' },
      { type: 'message.completed', runId: 'r1', messageId: 'u1' },
      { type: 'message.started', runId: 'r1', messageId: 'a1', role: 'assistant' },
      { type: 'text.delta', runId: 'r1', messageId: 'a1', text: 'I will write it.' },
      { type: 'message.completed', runId: 'r1', messageId: 'a1' },
    ])
    emitPainted([{ type: 'tool.call', runId: 'r1', messageId: 'a1', toolCallId: 't1', name: 'write_file', args: { path: 'a.txt' }, state: 'running' }])
    emitPainted([{ type: 'tool.result', runId: 'r1', toolCallId: 't1', ok: true, details: { path: 'a.txt', changed: true } }])
    emitPainted([
      { type: 'message.started', runId: 'r1', messageId: 'a2', role: 'assistant' },
      { type: 'text.delta', runId: 'r1', messageId: 'a2', text: 'Done: ' },
    ])
    expect(screen.getAllByTestId('message-assistant').map((e) => e.dataset.messageId)).toEqual(['a1', 'a2'])
    expect(document.querySelector('[data-tool-call-id="t1"]')?.getAttribute('data-tool-state')).toBe('completed')

    const renders = countRenders()
    emitPainted([{ type: 'text.delta', runId: 'r1', messageId: 'a2', text: 'the snake moves.' }])

    expect(screen.getAllByTestId('message-assistant')[1].textContent).toContain('Done: the snake moves.')
    expect(renders).toEqual(['a2'])
  })
})
