import { describe, expect, it } from 'vitest'
import { act, fireEvent, render, screen } from '@testing-library/react'
import type { AgentEvent, OpenedChat } from '../backend'
import { chatFromSnapshot, reduceChat, type ToolCard as Model, type ToolVisualState, type MessageView } from '../state/chatReducer'
import { loadHighlighter } from '../markdown/render'
import { ChatView } from './ChatView'
import { diffLines, DiffView, languageOf, splitRows } from './DiffView'
import { UsageLine } from './Message'
import { ToolCard } from './ToolCard'
import { toolTitle } from './toolTitle'
import { FakeBackend } from '../fakeBackend'
import { renderWithStore } from '../test/renderWithStore'

function card(over: Partial<Model> = {}): Model {
  return {
    id: 't1',
    name: 'write_file',
    args: { path: 'index.html' },
    state: 'completed',
    messageId: 'm1',
    runId: 'r1',
    output: '',
    details: null,
    durationMs: 5,
    approval: null,
    progress: null,
    ...over,
  }
}

describe('a tool card is titled by what happened', () => {
  it.each<[string, Partial<Model>, string]>([
    ['a file created', { details: { path: 'index.html', created: true } }, 'Created index.html'],
    ['a file replaced', { details: { path: 'index.html', changed: true } }, 'Replaced index.html'],
    ['a file written as it was', { details: { path: 'index.html' } }, 'Wrote index.html'],
    ['an edit', { name: 'edit_file' }, 'Edited index.html'],
    ['a read', { name: 'read_file', args: { path: 'notes.md' } }, 'Read notes.md'],
    ['a deletion', { name: 'delete_path', args: { path: 'old.txt' } }, 'Deleted old.txt'],
    ['a failed edit', { name: 'edit_file', state: 'failed' }, 'Could not edit index.html'],
    ['a denied deletion', { name: 'delete_path', args: { path: 'old.txt' }, state: 'denied' }, 'Did not delete old.txt'],
    ['a write waiting for approval', { state: 'awaiting_approval', preview: { path: 'index.html', bytes: 3, created: true } }, 'Create index.html?'],
    ['a read under way', { name: 'read_file', state: 'running' }, 'Reading index.html…'],
    ['a search', { name: 'search_files', args: { pattern: 'todo', path: '.' } }, 'Searched for “todo” in the workspace'],
    ['a tool it does not know', { name: 'mcp__docs__lookup', args: { q: 'x' } }, 'mcp__docs__lookup q: x'],
  ])('%s', (_, over, want) => {
    render(<ToolCard card={card(over)} />)
    const el = screen.getByTestId('tool-card')
    expect(screen.getByTestId('tool-title').textContent).toBe(want)
    expect(el.getAttribute('role')).toBe('group')
    expect(el.getAttribute('aria-label')).toBe(want)
  })

  it('keeps the function name as secondary text', () => {
    render(<ToolCard card={card({ name: 'edit_file' })} />)
    expect(screen.getByTestId('tool-card').textContent).toContain('edit_file')
    expect(screen.getByTestId('tool-title').textContent).not.toContain('edit_file')
  })

  it('gives the same title as one line of text', () => {
    expect(toolTitle(card({ name: 'read_file', state: 'completed' }), 'a.txt')).toBe('Read a.txt')
  })
})

describe('a diff', () => {
  const diff = '--- a/app.js\n+++ b/app.js\n@@ -3,3 +3,4 @@\n const a = 1\n-let b = 2\n+let b = 3\n+let c = 4\n return a\n\\ No newline at end of file\n'

  it('numbers each line before and after the change from its hunk', () => {
    const lines = diffLines(diff).filter((l) => l.kind !== 'hunk' && l.kind !== 'note')
    expect(lines.map((l) => [l.kind, l.oldLine, l.newLine, l.text])).toEqual([
      ['context', 3, 3, 'const a = 1'],
      ['del', 4, null, 'let b = 2'],
      ['add', null, 4, 'let b = 3'],
      ['add', null, 5, 'let c = 4'],
      ['context', 5, 6, 'return a'],
    ])
    expect(diffLines(diff).at(-1)).toMatchObject({ kind: 'note', text: 'No newline at end of file' })
  })

  it('shows the numbers, colours the text by the file’s language and lets long lines wrap', async () => {
    await loadHighlighter()
    const { container } = render(<DiffView diff={diff} open path="src/app.js" />)
    const rows = screen.getAllByTestId('diff-line')
    expect(rows.map((r) => Array.from(r.querySelectorAll('.ln'), (n) => n.textContent))).toEqual([
      ['3', '3'],
      ['4', ''],
      ['', '4'],
      ['', '5'],
      ['5', '6'],
    ])
    expect(rows[2].querySelector('.diff-text')!.textContent).toBe('let b = 3')
    expect(rows[2].querySelector('.hljs-keyword')?.textContent).toBe('let')
    expect(container.querySelector('[role="table"]')!.getAttribute('aria-label')).toBe('Diff: 2 lines added, 1 removed')
    expect(languageOf('Makefile')).toBe('makefile')
    expect(languageOf('lib.rs')).toBe('rust')
    expect(languageOf('README')).toBe('')
  })
})

describe('a diff side by side', () => {
  const diff = '@@ -1,3 +1,3 @@\n same\n-old one\n-old two\n+new one\n tail\n'

  it('puts the removed lines beside the ones added in their place', () => {
    const rows = splitRows(diffLines(diff)).filter((r) => !r.across)
    expect(rows.map((r) => [r.before?.text ?? null, r.after?.text ?? null])).toEqual([
      ['same', 'same'],
      ['old one', 'new one'],
      ['old two', null],
      ['tail', 'tail'],
    ])
  })

  it('is a toggle of the diff, pressed when on', () => {
    render(<DiffView diff={diff} open path="a.txt" />)
    const toggle = screen.getByRole('button', { name: 'Side by side' })
    expect(toggle.getAttribute('aria-pressed')).toBe('false')
    fireEvent.click(toggle)
    expect(toggle.getAttribute('aria-pressed')).toBe('true')
    expect(screen.getAllByTestId('diff-row')).toHaveLength(4)
    expect(screen.queryAllByTestId('diff-line')).toHaveLength(0)
  })
})

describe('a step’s statistics', () => {
  const message: MessageView = {
    id: 'a1',
    role: 'assistant',
    runId: 'r1',
    content: 'Done.',
    thinking: '',
    thinkingStartedAt: null,
    thinkingMs: null,
    complete: true,
    doneReason: 'stop',
    usage: { promptTokens: 120, evalTokens: 40, evalMs: 2000, tokensPerSec: 20, numCtx: 4096, contextTokens: 160 },
    local: false,
  }

  it('are behind a button that tells them as its description and keeps them open when pressed', () => {
    render(<UsageLine message={message} />)
    const button = screen.getByRole('button', { name: 'Statistics of this step' })
    const tip = document.getElementById(button.getAttribute('aria-describedby')!)!
    expect(tip.textContent).toBe('40 tokens written in 2.0 s · 20 tok/s · 120 prompt tokens')
    expect(tip.getAttribute('role')).toBe('tooltip')
    expect(button.getAttribute('aria-expanded')).toBe('false')
    fireEvent.click(button)
    expect(button.getAttribute('aria-expanded')).toBe('true')
    expect(screen.getByTestId('usage').className).toContain('pinned')
  })
})

describe('what an undo took back', () => {
  const opened = (toolStates: Record<string, string>, undoneRuns?: Record<string, string>): OpenedChat => ({
    chat: { id: 'c1', title: 'Chat', createdAt: '', updatedAt: '', messageCount: 2, phase: 'idle' },
    messages: [
      { id: 'u1', chatId: 'c1', runId: 'r1', role: 'user', content: 'make the page', createdAt: '', updatedAt: '', complete: true },
      { id: 'a1', chatId: 'c1', runId: 'r1', role: 'assistant', content: 'I made it.', createdAt: '', updatedAt: '', complete: true,
        toolCalls: [{ id: 'w1', name: 'write_file', args: { path: 'index.html' } }] },
    ],
    toolCalls: [
      { id: 'w1', chatId: 'c1', runId: 'r1', messageId: 'a1', name: 'write_file', args: { path: 'index.html' }, pending: false, ok: true,
        details: { path: 'index.html', created: true }, startedAt: '2025-01-01T00:00:00Z', finishedAt: '2025-01-01T00:00:01Z' },
    ],
    phase: 'idle',
    liveRunId: '',
    toolStates,
    undoneRuns,
    changes: [{ id: 'r1', kind: 'run', paths: ['index.html'], revertedBy: undoneRuns ? 'u9' : '' }],
  })
  const line = 'The changes made here were undone: index.html.'

  it('reads from the opened chat: the card is undone and the answer says so', async () => {
    const backend = new FakeBackend()
    backend.opened.c1 = opened({ w1: 'undone' }, { r1: line })
    const { store } = renderWithStore(<ChatView />, backend)
    await act(() => store.selectChat('c1'))
    const el = screen.getByTestId('tool-card')
    expect(el.dataset.toolState).toBe('undone')
    expect(el.getAttribute('aria-label')).toBe('Created index.html, undone')
    expect(el.textContent).toContain('undone')
    expect(el.textContent).not.toContain('✓')
    expect(screen.getByTestId('run-undone').textContent).toContain(line)
  })

  it('turns with an undo and back with a redo, as the events say', () => {
    let s = chatFromSnapshot(opened({ w1: 'completed' }))
    expect(s.tools.w1.state).toBe('completed')
    const ev = (type: 'undo' | 'redo', seq: number, states: Record<string, string>, runs?: Record<string, string>): AgentEvent =>
      ({ v: 1, seq, chatId: 'c1', type, at: '', changeId: `x${seq}`, reverts: ['r1'], toolStates: states, undoneRuns: runs }) as AgentEvent
    s = reduceChat(s, ev('undo', 1, { w1: 'undone' }, { r1: line }))
    expect(s.tools.w1.state).toBe<ToolVisualState>('undone')
    expect(s.undoneRuns).toEqual({ r1: line })
    s = reduceChat(s, ev('redo', 2, { w1: 'completed' }))
    expect(s.tools.w1.state).toBe('completed')
    expect(s.undoneRuns).toEqual({})
  })
})
