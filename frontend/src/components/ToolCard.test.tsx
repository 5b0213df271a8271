import { describe, expect, it, vi } from 'vitest'
import { fireEvent, render, screen } from '@testing-library/react'
import { newCard, type ToolCard as Model, type ToolVisualState } from '../state/chatReducer'
import { checkPreview } from '../state/records'
import { errorSentence, notRunSentence, stoppedSentence, summarizeArgs, ToolCard } from './ToolCard'

function card(over: Partial<Model> = {}): Model {
  return { ...newCard('t1', 'm1', 'r1'), name: 'write_file', args: { path: 'src/index.html', content: '<h1>Hi</h1>' }, state: 'running', ...over }
}

describe('ToolCard', () => {
  it.each<[ToolVisualState, Partial<Model>, RegExp]>([
    ['pending', {}, /queued/],
    ['running', {}, /running/],
    ['completed', { durationMs: 42 }, /✓ 42 ms/],
    ['failed', { output: 'permission denied: src/index.html\nmore' }, /✗ failed/],
    ['denied', { approval: { decision: 'deny', by: 'user', reason: 'not now' } }, /denied/],
    ['interrupted', {}, /interrupted/],
    ['awaiting_approval', {}, /awaiting approval/],
    ['not_run', { notRun: 'replied' }, /not run/],
    ['stopped', { output: 'stopped: the user stopped the run while this call was running' }, /stopped/],
  ])('shows the %s state as a badge and in data-tool-state', (state, over, badge) => {
    render(<ToolCard card={card({ state, ...over })} />)
    const el = screen.getByTestId('tool-card')
    expect(el.dataset.toolState).toBe(state)
    expect(el.dataset.toolCallId).toBe('t1')
    expect(el.textContent).toMatch(badge)
    expect(el.textContent).toContain('src/index.html')
  })

  it('says that a write whose content is the file’s changes nothing, rather than an edit of so many bytes', () => {
    // as the event brings it
    const preview = checkPreview({ path: 'index.html', bytes: 286, unchanged: true })
    render(<ToolCard card={card({ args: { path: 'index.html', content: 'same' }, state: 'awaiting_approval', preview })} />)
    const shown = screen.getByTestId('preview').textContent ?? ''
    expect(shown).toContain('Nothing changes: the content is the same as index.html’s')
    expect(shown).not.toContain('Will edit')
    expect(screen.getByTestId('tool-card').textContent).not.toContain('Replace')
  })

  it('shows a spinner only while running', () => {
    const { container, rerender } = render(<ToolCard card={card({ state: 'running' })} />)
    expect(container.querySelector('.spinner')).not.toBeNull()
    rerender(<ToolCard card={card({ state: 'completed', durationMs: 1500 })} />)
    expect(container.querySelector('.spinner')).toBeNull()
    expect(screen.getByTestId('tool-card').textContent).toContain('✓ 1.5 s')
  })

  it('shows the error of a failed call as a sentence', () => {
    render(<ToolCard card={card({ state: 'failed', output: 'permission denied: src/index.html\nstack' })} />)
    expect(screen.getByText('Permission denied: src/index.html')).toBeTruthy()
  })

  it('asks for approval with the arguments in full and reports the decision', () => {
    const onDecide = vi.fn()
    const { rerender } = render(<ToolCard card={card({ state: 'awaiting_approval' })} onDecide={onDecide} />)
    expect(screen.getByTestId('tool-card').textContent).toContain('"content": "<h1>Hi</h1>"')
    fireEvent.click(screen.getByRole('button', { name: 'Approve' }))
    expect(onDecide).toHaveBeenCalledWith('t1', 'allow')
    // Once answered, the buttons are spent (but keep the focus where it was).
    rerender(<ToolCard card={card({ state: 'awaiting_approval' })} onDecide={onDecide} decided="allow" />)
    expect(screen.getByRole('button', { name: 'Deny' }).getAttribute('aria-disabled')).toBe('true')
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }))
    expect(onDecide).toHaveBeenCalledTimes(1)
    expect(screen.getByRole('status').textContent).toBe('Approved; starting…')
  })

  it('shows the approval keys on the card they apply to, and gives its Approve button the focus', () => {
    render(<ToolCard card={card({ state: 'awaiting_approval' })} current />)
    const approve = screen.getByRole('button', { name: 'Approve' })
    const deny = screen.getByRole('button', { name: 'Deny' })
    expect(approve.getAttribute('aria-keyshortcuts')).toBe('Alt+A')
    expect(deny.getAttribute('aria-keyshortcuts')).toBe('Alt+D')
    expect(approve.querySelector('kbd')?.textContent).toBe('Alt+A')
    expect(deny.querySelector('kbd')?.textContent).toBe('Alt+D')
    expect(document.activeElement).toBe(approve)
  })

  it('never takes the focus from a text field, even an empty one: the next key is text, not a decision', () => {
    const field = document.body.appendChild(document.createElement('textarea'))
    field.focus()
    const onDecide = vi.fn()
    render(<ToolCard card={card({ state: 'awaiting_approval' })} current onDecide={onDecide} />)
    expect(document.activeElement).toBe(field)
    expect(onDecide).not.toHaveBeenCalled()
    field.remove()
  })

  it('shows no keys on a waiting card they do not apply to, and leaves the focus alone', () => {
    render(<ToolCard card={card({ state: 'awaiting_approval' })} />)
    const approve = screen.getByRole('button', { name: 'Approve' })
    expect(approve.hasAttribute('aria-keyshortcuts')).toBe(false)
    expect(approve.querySelector('kbd')).toBeNull()
    expect(document.activeElement).not.toBe(approve)
  })

  it('reports a denial', () => {
    const onDecide = vi.fn()
    render(<ToolCard card={card({ state: 'awaiting_approval' })} onDecide={onDecide} />)
    fireEvent.click(screen.getByRole('button', { name: 'Deny' }))
    expect(onDecide).toHaveBeenCalledWith('t1', 'deny')
  })

  it('shows the diff of a file tool folded, with its line counts', () => {
    const diff = '--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-old\n+new\n+more'
    const { container } = render(<ToolCard card={card({ state: 'completed', details: { path: 'x', diff } })} />)
    const details = container.querySelector('details.diff') as HTMLDetailsElement
    expect(details.open).toBe(false)
    expect(details.querySelector('summary')!.textContent).toBe('Diff +2 −1')
    expect(details.querySelectorAll('.diff-line.add')).toHaveLength(2)
  })

  it('shows the error sentence of a failed call without being opened, whole, as a sentence, and says when the tool gave none', () => {
    const cause =
      'invalid arguments for write_file: the path ../../etc/hosts is outside the workspace folder /home/me/site; write inside it, ' +
      'for example site/hosts.txt, or ask the user to open the folder that holds the file you want to change'
    render(<ToolCard card={card({ state: 'failed', output: `${cause}\n\ndetails the model reads` })} />)
    expect(screen.getByTestId('tool-error').textContent).toBe(`I${cause.slice(1)}`)
    expect(screen.getByTestId('tool-error').closest('details')).toBeNull()
    expect(errorSentence('')).toBe('The tool failed without saying why.')
    expect(errorSentence('  a  sentence\nstack')).toBe('A sentence')
    const long = errorSentence('word '.repeat(200))
    expect(long.length).toBeLessThanOrEqual(401)
    expect(long.endsWith('word…')).toBe(true)
  })

  it('draws a call that did not run as not run, in a neutral tone, with the reason', () => {
    render(<ToolCard card={card({ state: 'not_run', notRun: 'replied', output: 'the user replied instead of approving' })} />)
    const el = screen.getByTestId('tool-card')
    expect(el.dataset.toolState).toBe('not_run')
    expect(el.querySelector('.badge.err')).toBeNull()
    expect(el.querySelector('.tool-error')).toBeNull()
    expect(screen.getByTestId('not-run-reason').textContent).toBe('Not run: you replied instead.')
    expect(notRunSentence({ notRun: 'loop', output: '' })).toMatch(/kept repeating the same calls/)
    expect(notRunSentence({ notRun: 'repeated', output: '' })).toMatch(/same call/)
    expect(notRunSentence({ notRun: 'newer', output: 'not run: the moon is full' })).toBe('Not run: the moon is full')
  })

  it('labels a call the model wrote as text, and says on its waiting card that it runs only if approved', () => {
    const { rerender } = render(<ToolCard card={card({ state: 'awaiting_approval', recovered: true })} />)
    expect(screen.getByText('Written as text by the model')).toBeTruthy()
    expect(screen.getByRole('note').textContent).toMatch(/wrote this call as text in its answer, not as a tool call: approve it only if/)
    rerender(<ToolCard card={card({ state: 'awaiting_approval' })} />)
    expect(screen.queryByText('Written as text by the model')).toBeNull()
    expect(screen.queryByRole('note')).toBeNull()
  })

  it('says that a call copied from a file or tool output was not run', () => {
    render(<ToolCard card={card({ state: 'not_run', notRun: 'copied', recovered: true, output: 'not run: this call was copied from a file or tool output you just read' })} />)
    expect(screen.getByText('Written as text by the model')).toBeTruthy()
    expect(screen.getByTestId('not-run-reason').textContent).toBe(
      'Not run: the model copied this call from a file or tool output it had read. Text it reads is never run as a call.',
    )
  })

  it('draws a call the user stopped while it ran as stopped, in a neutral tone, with what was said of it', () => {
    const output = 'stopped: the run was stopped while the MCP server everything ran this call; it was asked to cancel it\nmore'
    render(<ToolCard card={card({ state: 'stopped', output, durationMs: 800 })} />)
    const el = screen.getByTestId('tool-card')
    expect(el.dataset.toolState).toBe('stopped')
    expect(el.querySelector('.badge')?.textContent).toBe('stopped')
    expect(el.querySelector('.badge.err, .tool-error')).toBeNull()
    expect(el.textContent).not.toMatch(/failed|✗/)
    expect(screen.getByTestId('stopped-sentence').textContent).toBe(
      'Stopped while it ran: the run was stopped while the MCP server everything ran this call; it was asked to cancel it',
    )
    expect(el.textContent).toContain('Output') // it says more than its sentence
    expect(stoppedSentence('')).toBe('Stopped while it ran.')
  })

  it('keeps the file name of a long path in sight, with the whole path as its text and tooltip', () => {
    const path = 'src/very/long/folder/names/that/go/on/and/on/components/ToolCard.tsx'
    render(<ToolCard card={card({ args: { path, content: 'x' } })} />)
    const subject = screen.getByTestId('tool-subject')
    expect(subject.textContent).toBe(path)
    expect(subject.title).toBe(path)
    expect(screen.getByTestId('path-base').textContent).toBe('ToolCard.tsx')
    expect(subject.querySelector('.path-dir')?.textContent).toBe('src/very/long/folder/names/that/go/on/and/on/components/')
  })

  it('shows what a search looks for and where, not the folder "."', () => {
    expect(summarizeArgs({ name: 'search_files', args: { pattern: 'TODO', path: '.' }, details: null })).toBe('“TODO” in the workspace')
    expect(summarizeArgs({ name: 'search_files', args: { pattern: 'func \\w+', path: 'src', glob: '*.go' }, details: null })).toBe(
      '“func \\w+” in src (*.go)',
    )
    expect(summarizeArgs({ name: 'search_files', args: { pattern: 'x' }, details: null })).toBe('“x” in the workspace')
    render(
      <ToolCard card={card({ name: 'search_files', args: { pattern: 'hello', path: '.' }, details: { path: '.' }, state: 'completed' })} onOpen={() => {}} />,
    )
    expect(screen.getByTestId('tool-subject').textContent).toBe('“hello” in the workspace')
    expect(screen.queryByRole('button', { name: /^Open/ })).toBeNull()
  })

  it('calls a listing of the workspace itself "the workspace", never "."', () => {
    expect(summarizeArgs({ name: 'list_dir', args: { path: '.' }, details: null })).toBe('the workspace')
    expect(summarizeArgs({ name: 'list_dir', args: { path: './' }, details: null })).toBe('the workspace')
    expect(summarizeArgs({ name: 'list_dir', args: {}, details: null })).toBe('the workspace')
    expect(summarizeArgs({ name: 'list_dir', args: { path: 'src' }, details: null })).toBe('src')
    render(<ToolCard card={card({ name: 'list_dir', args: { path: '.' }, details: { path: '.' }, state: 'completed' })} onOpen={() => {}} />)
    expect(screen.getByTestId('tool-subject').textContent).toBe('the workspace')
    expect(screen.getByRole('button', { name: 'Open the workspace' })).toBeTruthy()
    expect(screen.getByRole('button', { name: 'Show the workspace in its folder' })).toBeTruthy()
  })

  it('summarises arguments: the path for file tools, else key: value', () => {
    expect(summarizeArgs({ args: { path: 'a/b.go' }, details: null })).toBe('a/b.go')
    expect(summarizeArgs({ args: '{"path":"c.txt"}', details: null })).toBe('c.txt')
    expect(summarizeArgs({ args: { command: 'ls', n: 2 }, details: null })).toBe('command: ls, n: 2')
  })

  it('says, when asking for start_server, that the server keeps running after the run', () => {
    const command = { command: 'npm run dev', cwd: '', pattern: 'npm run', keepsRunning: true }
    // as the event brings it: the window reads the preview it is sent
    const preview = checkPreview({ path: '', bytes: 0, command })
    render(<ToolCard card={card({ name: 'start_server', args: { command: 'npm run dev' }, state: 'awaiting_approval', preview })} />)
    expect(screen.getByTestId('keeps-running').textContent).toMatch(/keeps running after the run/)
  })
})
