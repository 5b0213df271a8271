import { describe, expect, it } from 'vitest'
import { act, fireEvent, render, screen, within } from '@testing-library/react'
import type { AgentEvent } from '../backend'
import { mountApp } from '../test/mountApp'
import { renderWithStore } from '../test/renderWithStore'
import { newCard, type ToolCard as Model } from '../state/chatReducer'
import { appendOutput, emptyOutput, outputTailChars } from '../state/commandOutput'
import { ToolCard } from './ToolCard'

function card(over: Partial<Model> = {}): Model {
  return { ...newCard('t1', 'm1', 'r1'), name: 'run_command', args: { command: 'npm test', cwd: 'web' }, state: 'running', ...over }
}

const show = (c: Model) => renderWithStore(<ToolCard card={c} />)
const theCard = () => screen.getByTestId('tool-card')

describe('the card of a command', () => {
  it('is titled by what happened: running, then ran with its exit status, its folder beside', () => {
    const { rerender } = show(card())
    expect(within(theCard()).getByTestId('tool-subject').textContent).toBe('Running npm test…')
    expect(theCard().textContent).toContain('in web')
    expect(screen.getByRole('group', { name: 'Running npm test…' })).toBeTruthy()
    for (const [details, state, status] of [
      [{ command: { exitCode: 0, durationMs: 1500 } }, 'completed', '✓ exit 0'],
      [{ command: { exitCode: 1, durationMs: 1500 } }, 'completed', '✗ exit 1'],
      [{ command: { exitCode: -1, durationMs: 120000, timedOut: true } }, 'completed', '✗ timed out'],
      [null, 'stopped', 'stopped'],
    ] as const) {
      rerender(<ToolCard card={card({ state, details, durationMs: 1500, output: 'stopped: the user stopped the run' })} />)
      expect(within(theCard()).getByTestId('tool-subject').textContent).toBe('Ran npm test')
      expect(within(theCard()).getByTestId('exit-status').textContent).toBe(status)
    }
    expect(screen.getByRole('group', { name: 'Ran npm test, stopped' })).toBeTruthy()
  })

  it('says nothing of a folder for a command run at the root', () => {
    show(card({ args: { command: 'ls', cwd: '.' } }))
    expect(theCard().textContent).not.toContain(' in ')
  })

  it('shows its output live in one block, stderr marked, and what was cut in between', () => {
    let out = appendOutput(emptyOutput, 'stdout', 'Ran 2 tests\n')
    out = appendOutput(out, 'stderr', 'FAIL: test_add\n')
    const { rerender } = show(card({ commandOutput: out }))
    const log = screen.getByRole('log', { name: 'Output of npm test, live' })
    expect(log.textContent).toBe('Ran 2 tests\nFAIL: test_add\n')
    expect(log.querySelector('[data-stream="stderr"]')?.textContent).toBe('FAIL: test_add\n')
    expect(log.querySelector('.stderr')).not.toBeNull()
    expect(log.tabIndex).toBe(0)
    out = appendOutput(out, 'stdout', 'y'.repeat(outputTailChars * 2))
    rerender(<ToolCard card={card({ commandOutput: out })} />)
    expect(screen.getByTestId('output-cut').textContent).toContain('characters cut here')
  })

  it('follows the end of its output unless the user scrolled up to read', () => {
    // a card not waiting needs no store: rendered alone, its rerenders keep its elements
    const { rerender } = render(<ToolCard card={card({ commandOutput: appendOutput(emptyOutput, 'stdout', 'a\n') })} />)
    const log = screen.getByRole('log') as HTMLPreElement
    let height = 500
    Object.defineProperty(log, 'scrollHeight', { get: () => height, configurable: true })
    Object.defineProperty(log, 'clientHeight', { get: () => 100, configurable: true })
    let top = 0 // jsdom lays nothing out: the scroll position is the test's
    Object.defineProperty(log, 'scrollTop', { get: () => top, set: (v: number) => (top = Math.min(v, height - 100)), configurable: true })
    rerender(<ToolCard card={card({ commandOutput: appendOutput(emptyOutput, 'stdout', 'a\nb\n') })} />)
    expect(log.scrollTop).toBe(400)
    log.scrollTop = 100 // the user scrolls up
    fireEvent.scroll(log)
    height = 900
    rerender(<ToolCard card={card({ commandOutput: appendOutput(emptyOutput, 'stdout', 'a\nb\nc\n') })} />)
    expect(log.scrollTop).toBe(100)
    log.scrollTop = 800 // back at the end
    fireEvent.scroll(log)
    height = 1200
    rerender(<ToolCard card={card({ commandOutput: appendOutput(emptyOutput, 'stdout', 'a\nb\nc\nd\n') })} />)
    expect(log.scrollTop).toBe(1100)
  })

  it('after it ends: the time, the files it changed with their diffs folded, those not undoable flagged, the output', () => {
    show(
      card({
        state: 'completed',
        durationMs: 2300,
        commandOutput: appendOutput(emptyOutput, 'stderr', 'FAIL\n'),
        details: {
          command: {
            exitCode: 1,
            durationMs: 2300,
            network: true,
            changes: [
              { path: 'calc.py', kind: 'created', bytes: 40, diff: '--- /dev/null\n+++ b/calc.py\n@@ -0,0 +1 @@\n+def add(a, b): return a - b' },
              { path: 'old.txt', kind: 'deleted', bytes: 0, diff: '' },
              { path: 'big.bin', kind: 'modified', bytes: 90000000, diff: '' },
            ],
            notUndoable: ['big.bin'],
          },
        },
      }),
    )
    expect(screen.getByTestId('command-facts').textContent).toBe('took 2.3 s · with network')
    const files = screen.getByRole('list', { name: 'Files changed by npm test' })
    const items = within(files).getAllByRole('listitem')
    expect(items.map((i) => i.textContent)).toEqual([
      expect.stringContaining('created calc.py'),
      'deleted old.txt',
      expect.stringMatching(/^modified big\.bin.*not undoable$/),
    ])
    const diff = items[0].querySelector('details')!
    expect(diff.open).toBe(false)
    expect(within(items[0]).getByText('created calc.py', { exact: false }).closest('summary')).not.toBeNull()
    // a failed command's output is open
    expect(screen.getByRole('log', { name: 'Output of npm test' }).textContent).toBe('FAIL\n')
    expect((screen.getByRole('log', { name: 'Output of npm test' }).closest('details') as HTMLDetailsElement).open).toBe(true)
  })

  it('shows the result text when the output was not seen live (a chat opened from the store)', () => {
    show(card({ state: 'completed', restored: true, output: 'exit status 0\nok', details: { command: { exitCode: 0, durationMs: 10 } } }))
    expect(screen.getByLabelText('Output of npm test').textContent).toBe('exit status 0\nok')
    expect(theCard().textContent).toContain('No file changed.')
  })

  it('counts the changes not listed, and names those left out because no tool may make them', () => {
    show(
      card({
        state: 'completed',
        details: { command: { exitCode: 0, durationMs: 10, changes: [{ path: 'node_modules/a.js', kind: 'created' }], moreChanges: 9999, refused: ['.git/config'] } },
      }),
    )
    expect(theCard().textContent).toContain('10,000 files changed')
    expect(theCard().textContent).toContain('… and 9,999 more')
    expect(screen.getByTestId('command-refused').textContent).toBe('Left out (no tool may change it): .git/config')
  })

  it('folds no output under a stopped command whose result is only its sentence', () => {
    show(card({ state: 'stopped', output: 'stopped: the command was stopped; nothing it wrote was applied to the workspace' }))
    expect(screen.getByTestId('stopped-sentence').textContent).toBe('Stopped while it ran: the command was stopped; nothing it wrote was applied to the workspace')
    expect(screen.queryByText('Output')).toBeNull()
  })

  it('says why a command could not run', () => {
    show(card({ state: 'failed', output: 'The sandbox cannot start here: turn on "Run commands without the sandbox" in Settings.' }))
    expect(within(theCard()).getByTestId('tool-subject').textContent).toBe('Could not run npm test')
    expect(screen.getByTestId('tool-error').textContent).toContain('The sandbox cannot start here')
  })
})

describe('approving a command', () => {
  async function mount() {
    const { backend, emitPainted, store } = await mountApp([
      { id: 'c1', title: 'Open chat', createdAt: '2025-01-02T00:00:00Z', updatedAt: '2025-01-02T00:00:00Z', messageCount: 1, phase: 'idle' },
    ])
    let seq = 100
    const wait = (id: string, command = 'npm test -- --watch=false', pattern = 'npm test') =>
      emitPainted([
        {
          seq: ++seq,
          runId: 'r1',
          messageId: 'm1',
          type: 'tool.approval_requested',
          toolCallId: id,
          name: 'run_command',
          args: { command, cwd: 'web' },
          preview: { path: '', bytes: 0, command: { command, cwd: 'web', pattern } },
        } as Partial<AgentEvent> & Pick<AgentEvent, 'type'>,
        { seq: ++seq, runId: 'r1', type: 'phase', phase: 'awaiting_approval' },
      ])
    const composer = screen.getByRole('textbox', { name: 'Message' })
    return { backend, wait, composer, store }
  }
  const alt = (key: string) => ({ key, code: `Key${key.toUpperCase()}`, altKey: true })
  const cardOf = (id: string) => screen.getAllByTestId('tool-card').find((e) => e.dataset.toolCallId === id)!

  it('shows the command line, its folder, the network off and the suggested prefix', async () => {
    const { wait } = await mount()
    wait('t1')
    const c = cardOf('t1')
    expect(within(c).getByLabelText('Command line').textContent).toBe('npm test -- --watch=false')
    expect(c.textContent).toContain('in web, in a sandbox')
    expect((within(c).getByRole('checkbox', { name: /Allow network/ }) as HTMLInputElement).checked).toBe(false)
    expect((within(c).getByRole('textbox', { name: 'Always allow commands starting with' }) as HTMLInputElement).value).toBe('npm test')
    expect(within(c).getByRole('button', { name: 'Always allow' }).getAttribute('aria-keyshortcuts')).toBe('Alt+L')
    expect(screen.getByTestId('window-status').textContent).toBe(
      'The command npm test -- --watch=false waits for your approval: Alt+A approves, Alt+D denies.',
    )
  })

  it('offers no prefix for a bare shell, whose first word would allow any script', async () => {
    const { wait } = await mount()
    wait('t1', 'bash', '')
    const c = cardOf('t1')
    expect((within(c).getByRole('textbox', { name: 'Always allow commands starting with' }) as HTMLInputElement).value).toBe('')
    expect(c.textContent).toContain('Write the start of the commands to always allow.')
  })

  it('marks the invisible and bidirectional characters of the command line, and its newlines', async () => {
    const { wait } = await mount()
    wait('t1', 'echo "\u202Etxt.exe"\u200B && ls\nrm -rf x\r', 'echo')
    const line = within(cardOf('t1')).getByLabelText('Command line')
    expect(line.textContent).toBe('echo "<U+202E>txt.exe"<U+200B> && ls⏎\nrm -rf x<U+000D>')
    expect(cardOf('t1').getAttribute('aria-label') ?? '').not.toMatch(/[\u202E\u200B]/)
    expect(screen.getByTestId('window-status').textContent).toContain('The command echo "<U+202E>txt.exe"<U+200B> && ls…')
  })

  it('says how much of a long command is not shown yet, and shows it on request', async () => {
    const { wait } = await mount()
    const padded = 'npm test' + '\n'.repeat(40) + 'rm -rf ~'
    wait('t1', padded, 'npm test')
    const c = cardOf('t1')
    expect(within(c).getByLabelText('Command line').textContent).not.toContain('rm -rf ~')
    const more = within(c).getByRole('button', { name: 'Show the rest of the command: 33 more lines' })
    more.focus()
    expect(document.activeElement).toBe(more)
    fireEvent.click(more)
    expect(within(c).getByLabelText('Command line').textContent).toBe('npm test' + '⏎\n'.repeat(40) + 'rm -rf ~')
    expect(within(c).queryByRole('button', { name: /Show the rest/ })).toBeNull()

    wait('t2', 'echo ' + 'a'.repeat(1500) + ' && rm -rf ~', 'echo')
    const long = within(cardOf('t2')).getByRole('button', { name: /^Show the rest of the command: \d+ more characters$/ })
    expect(within(cardOf('t2')).getByLabelText('Command line').textContent).not.toContain('rm -rf')
    fireEvent.click(long)
    expect(within(cardOf('t2')).getByLabelText('Command line').textContent).toContain('&& rm -rf ~')
  })

  it('Approve without network is a plain decision; with network (Alt+N) it is AllowCommand with no pattern', async () => {
    const { backend, wait, composer } = await mount()
    wait('t1')
    fireEvent.keyDown(composer, alt('a'))
    expect(backend.callsOf('Decide')).toEqual([['t1', 'allow', '']])
    expect(backend.callsOf('AllowCommand')).toEqual([])
    wait('t2')
    fireEvent.keyDown(composer, alt('n'))
    expect((within(cardOf('t2')).getByRole('checkbox', { name: /Allow network/ }) as HTMLInputElement).checked).toBe(true)
    await act(async () => {
      fireEvent.click(within(cardOf('t2')).getByRole('button', { name: 'Approve' }))
    })
    expect(backend.callsOf('AllowCommand')).toEqual([['t2', true, '']])
    expect(backend.callsOf('Decide')).toEqual([['t1', 'allow', '']])
  })

  it('Always allow remembers the prefix as the user edited it, with the network chosen', async () => {
    const { backend, wait, composer } = await mount()
    wait('t1')
    const c = cardOf('t1')
    const field = within(c).getByRole('textbox', { name: 'Always allow commands starting with' })
    fireEvent.change(field, { target: { value: 'npm' } })
    fireEvent.click(within(c).getByRole('checkbox', { name: /Allow network/ }))
    await act(async () => {
      fireEvent.keyDown(composer, alt('l'))
    })
    expect(backend.callsOf('AllowCommand')).toEqual([['t1', true, 'npm']])
    expect(backend.callsOf('AllowAlways')).toEqual([])
  })

  it('Enter in the prefix field always allows it; a blank prefix allows nothing', async () => {
    const { backend, wait } = await mount()
    wait('t1')
    const field = within(cardOf('t1')).getByRole('textbox', { name: 'Always allow commands starting with' })
    fireEvent.change(field, { target: { value: '  ' } })
    fireEvent.keyDown(field, { key: 'Enter' })
    expect(backend.callsOf('AllowCommand')).toEqual([])
    expect(cardOf('t1').textContent).toContain('Write the start of the commands to always allow.')
    fireEvent.change(field, { target: { value: 'npm test' } })
    await act(async () => {
      fireEvent.keyDown(field, { key: 'Enter' })
    })
    expect(backend.callsOf('AllowCommand')).toEqual([['t1', false, 'npm test']])
  })

  it('Deny is a decision as for any tool', async () => {
    const { backend, wait, composer } = await mount()
    wait('t1')
    fireEvent.keyDown(composer, alt('d'))
    expect(backend.callsOf('Decide')).toEqual([['t1', 'deny', '']])
  })
})
