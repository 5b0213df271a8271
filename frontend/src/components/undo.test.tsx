import { describe, expect, it, vi } from 'vitest'
import { act, fireEvent, render, screen, within } from '@testing-library/react'
import type { AgentEvent, OpenedChat } from '../backend'
import { FakeBackend, FakeFrames } from '../fakeBackend'
import { emptyChat, redoable, reduceChat, standingChange, type ToolCard as Model } from '../state/chatReducer'
import { AppStore } from '../state/store'
import { StoreContext } from '../state/useAppState'
import { App } from '../App'
import { ToolCard } from './ToolCard'
import { pathList, runChangeText, undoneText } from '../state/store'
import { checkPreview } from '../state/records'
import { renderWithStore } from '../test/renderWithStore'

function ev(seq: number, e: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent {
  return { v: 1, seq, chatId: 'c1', runId: 'r1', messageId: 'm1', at: '2025-01-01T00:00:00Z', ...e }
}

const preview = {
  path: 'notes.md',
  bytes: 15,
  diff: '--- a/notes.md\n+++ b/notes.md\n@@ -1 +1,3 @@\n # Hello\n+\n+World\n',
}

// A write_file card waiting for approval, as the reducer makes it from the request.
const waiting: Model = reduceChat(
  emptyChat('c1'),
  ev(1, {
    type: 'tool.approval_requested',
    toolCallId: 't1',
    name: 'write_file',
    args: { path: 'notes.md', content: '# Hello\n\nWorld\n' },
    preview,
  }),
).tools.t1

describe('checkpoints in the chat state', () => {
  it('keeps the runs that changed files, and marks what an undo and a redo took back', () => {
    let s = [
      ev(1, { type: 'checkpoint', toolCallId: 't1', paths: ['a.txt'] }),
      ev(2, { type: 'checkpoint', toolCallId: 't2', paths: ['b.txt'], notUndoable: ['b.txt'] }),
    ].reduce(reduceChat, emptyChat('c1'))
    expect(standingChange(s, 'r1')?.paths).toEqual(['a.txt', 'b.txt'])
    expect(s.tools.t2.notUndoable).toEqual(['b.txt'])
    s = reduceChat(s, ev(3, { type: 'undo', runId: '', changeId: 'u1', reverts: ['r1'], paths: ['a.txt', 'b.txt'] }))
    expect(standingChange(s, 'r1')).toBeNull()
    expect(redoable(s)?.id).toBe('u1')
    s = reduceChat(s, ev(4, { type: 'redo', runId: '', changeId: 'd1', reverts: ['u1'], paths: ['a.txt'] }))
    expect(standingChange(s, 'r1')).not.toBeNull()
    expect(redoable(s)).toBeNull()
  })

  it('offers no Redo for an undo of a version of the chat not shown, and the one before it instead', () => {
    const s = {
      ...emptyChat('c1'),
      changes: [
        { id: 'r0', kind: 'run', paths: ['a.txt'], revertedBy: 'u0' },
        { id: 'u0', kind: 'undo', paths: ['a.txt'], reverts: ['r0'] },
        { id: 'r1', kind: 'run', paths: ['index.html'], revertedBy: 'u1', otherVersion: true },
        { id: 'u1', kind: 'undo', paths: ['index.html'], reverts: ['r1'], otherVersion: true },
      ],
    }
    expect(redoable(s)?.id).toBe('u0')
    expect(redoable({ ...s, changes: s.changes.slice(2) })).toBeNull()
  })

  it('offers Redo for a Revert all made now of runs of two versions, as Go does, and none for one of hidden runs alone', () => {
    const s = {
      ...emptyChat('c1'),
      changes: [
        { id: 'r0', kind: 'run', paths: ['a.txt'], otherVersion: true },
        { id: 'r1', kind: 'run', paths: ['b.txt'] },
      ],
    }
    const all = reduceChat(s, ev(1, { type: 'undo', runId: '', changeId: 'u1', reverts: ['r0', 'r1'], paths: ['a.txt', 'b.txt'] }))
    expect(redoable(all)?.id).toBe('u1')
    const hidden = reduceChat(s, ev(1, { type: 'undo', runId: '', changeId: 'u2', reverts: ['r0'], paths: ['a.txt'] }))
    expect(redoable(hidden)).toBeNull()
  })

  it('drops from its run a path the call that failed left as it was', () => {
    let s = [
      ev(1, { type: 'checkpoint', toolCallId: 't1', paths: ['a.txt'] }),
      ev(2, { type: 'tool.result', toolCallId: 't1', ok: false, output: 'permission denied', unchanged: ['a.txt'] }),
    ].reduce(reduceChat, emptyChat('c1'))
    expect(standingChange(s, 'r1')).toBeNull()
    s = [
      ev(3, { type: 'checkpoint', toolCallId: 't2', paths: ['b.txt'] }),
      ev(4, { type: 'tool.result', toolCallId: 't2', ok: true, output: 'wrote b.txt' }),
    ].reduce(reduceChat, s)
    expect(standingChange(s, 'r1')?.paths).toEqual(['b.txt'])
  })

  it('puts the preview of an approval request on its card', () => {
    const s = reduceChat(
      emptyChat('c1'),
      ev(1, { type: 'tool.approval_requested', toolCallId: 't1', name: 'write_file', preview }),
    )
    expect(s.tools.t1.preview?.diff).toContain('+World')
  })
})

describe('the approval card', () => {
  it('shows the diff of the change rather than the escaped arguments', () => {
    render(<ToolCard card={waiting} current onDecide={() => {}} />)
    const el = screen.getByTestId('tool-card')
    expect(screen.getByTestId('preview').textContent).toContain('Will edit notes.md (15 bytes after the edit)')
    expect(el.textContent).toContain('+World')
    expect(el.textContent).not.toContain('\\n')
  })

  it('shows each decision with its shortcut, and sends a reason the model reads', () => {
    const onDecide = vi.fn()
    const onAllowAlways = vi.fn()
    let asking = false
    const onAskReason = (id: string | null) => {
      asking = !!id
    }
    const { rerender } = render(
      <ToolCard card={waiting} current onDecide={onDecide} onAllowAlways={onAllowAlways} onAskReason={onAskReason} />,
    )
    for (const [name, keys] of [
      ['Approve', 'Alt+A'],
      ['Deny', 'Alt+D'],
      ['Deny and tell why…', 'Alt+R'],
      ['Always allow here', 'Alt+L'],
    ]) {
      const b = screen.getByRole('button', { name })
      expect(b.getAttribute('aria-keyshortcuts')).toBe(keys)
      expect(b.textContent).toContain(keys)
    }
    fireEvent.click(screen.getByRole('button', { name: 'Always allow here' }))
    expect(onAllowAlways).toHaveBeenCalledWith('t1')
    fireEvent.click(screen.getByRole('button', { name: 'Deny and tell why…' }))
    expect(asking).toBe(true)
    rerender(
      <ToolCard card={waiting} current onDecide={onDecide} onAllowAlways={onAllowAlways} onAskReason={onAskReason} askingReason />,
    )
    fireEvent.change(screen.getByRole('textbox', { name: /why the call is denied/i }), { target: { value: 'use docs/ instead' } })
    fireEvent.click(screen.getByRole('button', { name: 'Deny with this reason' }))
    expect(onDecide).toHaveBeenCalledWith('t1', 'deny', 'use docs/ instead')
  })

  it('lists what a delete removes, and says when a change cannot be undone', () => {
    const card: Model = {
      ...waiting,
      name: 'delete_path',
      preview: {
        path: 'lib',
        bytes: 3,
        removes: [
          { path: 'lib', kind: 'dir' },
          { path: 'lib/a.txt', kind: 'file', bytes: 3 },
        ],
        notUndoable: ['lib/a.txt'],
      },
    }
    render(<ToolCard card={card} />)
    const text = screen.getByTestId('preview').textContent ?? ''
    expect(text).toContain('Will delete 2 files and folders')
    expect(text).toContain('lib/a.txt')
    expect(text).toContain('cannot be undone')
  })

  it('says before Approve when the call cannot succeed as it is, with its arguments', () => {
    const fails = 'old_string was not found in "notes.md"; read the file again and copy the exact text'
    render(<ToolCard card={{ ...waiting, name: 'edit_file', preview: checkPreview({ path: '', bytes: 0, fails }) }} />)
    expect(screen.getByTestId('preview-fails').textContent).toBe(`This call cannot succeed as it is: ${fails}`)
    expect(screen.queryByTestId('preview')).toBeNull()
  })

  it('offers Open and Show in folder on a file the call wrote', () => {
    const onOpen = vi.fn()
    render(<ToolCard card={{ ...waiting, state: 'completed', details: { path: 'notes.md' } }} onOpen={onOpen} />)
    fireEvent.click(screen.getByRole('button', { name: 'Show notes.md in its folder' }))
    expect(onOpen).toHaveBeenCalledWith('notes.md', true, waiting.id) // the call names the folder it wrote in
  })
})

describe('undo in the window', () => {
  async function mount() {
    const backend = new FakeBackend()
    backend.chats = [{ id: 'c1', title: 'Chat', createdAt: '', updatedAt: '', messageCount: 3, phase: 'idle' }]
    const opened: OpenedChat = {
      chat: backend.chats[0],
      messages: [
        { id: 'u1', chatId: 'c1', runId: 'r1', role: 'user', content: 'write a', createdAt: '', updatedAt: '', complete: true },
        { id: 'a1', chatId: 'c1', runId: 'r1', role: 'assistant', content: 'done a', createdAt: '', updatedAt: '', complete: true },
        { id: 'u2', chatId: 'c1', runId: 'r2', role: 'user', content: 'write b', createdAt: '', updatedAt: '', complete: true },
        { id: 'a2', chatId: 'c1', runId: 'r2', role: 'assistant', content: 'done b', createdAt: '', updatedAt: '', complete: true },
      ],
      toolCalls: [
        { id: 't1', chatId: 'c1', runId: 'r1', messageId: 'a1', name: 'write_file', args: { path: 'a.txt' },
          pending: false, ok: true, details: { path: 'a.txt' }, startedAt: '2025-01-01T00:00:00Z', finishedAt: '2025-01-01T00:00:01Z' },
      ],
      phase: 'idle',
      liveRunId: '',
      toolStates: { t1: 'completed' },
      changes: [
        { id: 'r1', kind: 'run', paths: ['a.txt'], created: ['a.txt'] },
        { id: 'r2', kind: 'run', paths: ['b.txt', 'c.txt', 'old.txt'], deleted: ['old.txt'] },
      ],
    }
    backend.opened.c1 = opened
    const { store } = renderWithStore(<App />, backend)
    await act(() => store.start())
    await act(() => store.selectChat('c1'))
    return { backend, store }
  }

  it('has Undo on each run that changed files and Restore to here on each message before one', async () => {
    const { backend } = await mount()
    const runs = screen.getAllByTestId('run-changes')
    expect(runs.map((r) => r.dataset.runId)).toEqual(['r1', 'r2'])
    expect(runs[1].textContent).toContain('b.txt and c.txt')
    await act(async () => fireEvent.click(runs[0].querySelector('button')!))
    expect(backend.calls.find((c) => c.method === 'Undo')?.args).toEqual(['c1', { runId: 'r1' }])
    const restore = screen.getAllByTestId('restore-here')
    expect(restore).toHaveLength(2)
    await act(async () => fireEvent.click(restore[0]))
    expect(backend.calls.filter((c) => c.method === 'Undo')[1].args).toEqual(['c1', { fromRun: 'r1' }])
  })

  it('offers to keep the user version or overwrite it when the undo is refused, and keeps the choice open when it cannot keep it', async () => {
    const { backend, store } = await mount()
    backend.undoError = 'nothing was undone: a.txt was changed after it was written (by you, another chat or another program); keep your version beside the restored one, or overwrite it'
    await act(() => store.undo())
    expect(screen.getByTestId('undo-conflict').textContent).toContain('a.txt was changed after it was written')
    backend.undoError =
      'your version of a.txt (12.0 MiB) is larger than the 10.0 MiB the app keeps of a file, so it cannot be kept beside the restored one, and nothing was changed: copy it elsewhere yourself, then overwrite it (Overwrite mine, or --force)'
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Keep mine beside it' })))
    expect(backend.calls.filter((c) => c.method === 'Undo').pop()?.args).toEqual(['c1', { keep: true }])
    expect(screen.getByTestId('undo-conflict').textContent).toContain('cannot be kept beside the restored one')
    backend.undoError = ''
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Overwrite mine' })))
    expect(backend.calls.filter((c) => c.method === 'Undo').pop()?.args).toEqual(['c1', { force: true }])
  })

  it('says what an undo put back under the chat it was done in only', async () => {
    const { backend, store } = await mount()
    backend.chats.push({ id: 'c2', title: 'Another folder', createdAt: '', updatedAt: '', messageCount: 0, phase: 'idle' })
    backend.opened.c2 = { chat: backend.chats[1], messages: [], toolCalls: [], phase: 'idle', liveRunId: '', changes: [{ id: 'r9', kind: 'run', paths: ['a.txt'] }] }
    backend.undoResult = { changeId: 'change-1', reverts: ['r2'], paths: ['a.txt'] }
    await act(() => store.undo())
    expect(screen.getByTestId('undo-note').textContent).toBe('Undone: a.txt put back.')
    // another chat, with a file of the same name: the note is not its own
    await act(() => store.selectChat('c2'))
    expect(screen.getByTestId('changes-bar')).toBeTruthy()
    expect(screen.queryByTestId('undo-note')).toBeNull()
    await act(() => store.selectChat('c1'))
    expect(screen.getByTestId('undo-note').textContent).toBe('Undone: a.txt put back.')
  })

  it('names a file an undo could not put back, as the undo says it', async () => {
    const { backend, store } = await mount()
    const sentence = 'build/big.bin is gone: it was too large (28.0 MiB) to keep when it was deleted, so it could not be put back'
    backend.undoResult = {
      changeId: 'change-1',
      reverts: ['r2'],
      paths: ['build', 'build/out.txt'],
      notPutBack: [{ path: 'build/big.bin', bytes: 28 << 20, gone: true, sentence }],
    }
    await act(() => store.undo({ keep: true }))
    expect(screen.getByTestId('undo-note').textContent).toContain(`${sentence}.`)
  })

  it('undoes with Alt+Z from anywhere in the window', async () => {
    const { backend } = await mount()
    await act(async () => fireEvent.keyDown(window, { key: 'z', code: 'KeyZ', altKey: true }))
    expect(backend.calls.some((c) => c.method === 'Undo')).toBe(true)
  })

  it('shows the review of changed files with a per-file revert', async () => {
    const { backend, store } = await mount()
    backend.review = [{ path: 'a.txt', workspace: '/home/me/project', status: 'changed', bytes: 2, diff: '--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-0\n+1\n' }]
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Changes' })))
    expect(screen.getByTestId('changed-file').dataset.status).toBe('changed')
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Revert a.txt to before this chat' })))
    expect(backend.calls.filter((c) => c.method === 'Undo').pop()?.args).toEqual(['c1', { path: 'a.txt', workspace: '/home/me/project' }])
    expect(store.getState().review?.chatId).toBe('c1')
  })

  it('opens and closes the review with Alt+C, shown on its button, and gives it the focus', async () => {
    const { store } = await mount()
    expect(screen.getByRole('button', { name: 'Changes' }).getAttribute('aria-keyshortcuts')).toBe('Alt+C')
    await act(async () => fireEvent.keyDown(window, { key: 'c', code: 'KeyC', altKey: true }))
    expect(store.getState().review?.chatId).toBe('c1')
    expect(document.activeElement).toBe(screen.getByTestId('changes-panel'))
    await act(async () => fireEvent.keyDown(window, { key: 'c', code: 'KeyC', altKey: true }))
    expect(store.getState().review).toBeNull()
  })

  it('names the folder of a file written before the chat moved to another one', async () => {
    const { backend } = await mount()
    backend.review = [{ path: 'a.txt', workspace: '/earlier', status: 'changed', bytes: 2 }]
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Changes' })))
    expect(screen.getByTestId('changed-file').textContent).toContain('in earlier, the chat’s earlier folder')
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Revert a.txt in earlier to before this chat' })))
    expect(backend.calls.filter((c) => c.method === 'Undo').pop()?.args).toEqual(['c1', { path: 'a.txt', workspace: '/earlier' }])
  })

  it('opens each of two files of one name in the folder the review names for it', async () => {
    const { backend } = await mount()
    backend.review = [
      { path: 'a.txt', workspace: '/earlier', status: 'changed', bytes: 2 },
      { path: 'a.txt', workspace: '/home/me/project', status: 'created', bytes: 2 },
    ]
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Changes' })))
    const panel = within(screen.getByTestId('changes-panel'))
    await act(async () => fireEvent.click(panel.getByRole('button', { name: 'Open a.txt in earlier' })))
    await act(async () => fireEvent.click(panel.getByRole('button', { name: 'Open a.txt' })))
    expect(backend.calls.filter((c) => c.method === 'OpenChangedPath').map((c) => c.args)).toEqual([
      ['c1', '/earlier', 'a.txt', false],
      ['c1', '/home/me/project', 'a.txt', false],
    ])
  })

  it('takes Open and Show in folder off the cards of a run that was undone', async () => {
    const { store } = await mount()
    expect(screen.getByRole('button', { name: 'Show a.txt in its folder' })).toBeTruthy()
    await act(async () => store.ingest([ev(100, { type: 'undo', runId: '', changeId: 'u9', reverts: ['r1'], paths: ['a.txt'] })]))
    expect(screen.queryByRole('button', { name: 'Show a.txt in its folder' })).toBeNull()
  })

  it('names the paths each run changed beside its Undo', async () => {
    await mount()
    const runs = screen.getAllByTestId('run-changes').map((r) => r.textContent)
    expect(runs[0]).toContain('This run created a.txt.')
    expect(runs[1]).toContain('This run edited b.txt and c.txt, and deleted old.txt.')
    expect(pathList(['a', 'b', 'c', 'd', 'e'])).toBe('a, b, c and 2 more')
    expect(pathList(['a', 'b', 'c'])).toBe('a, b and c')
  })

  it('says what an undo put back and what it removed, files named and their folders counted apart', () => {
    expect(undoneText(false, { paths: ['résumé notes', 'résumé notes/ünï côde.txt'] })).toBe(
      'Undone: résumé notes/ünï côde.txt (and a folder) put back.',
    )
    expect(undoneText(true, { paths: ['a.txt'] })).toBe('Redone: a.txt as the run left it.')
    expect(undoneText(true, { paths: ['a.txt', 'b.txt', 'old.txt'], removed: ['old.txt'] })).toBe(
      'Redone: a.txt and b.txt as the run left them; old.txt removed again.',
    )
    expect(undoneText(false, { paths: ['a.txt', 'site', 'site/b.txt'], removed: ['site', 'site/b.txt'] })).toBe(
      'Undone: a.txt put back; site/b.txt (and a folder) removed.',
    )
    expect(undoneText(false, { paths: ['b.txt'], removed: ['b.txt'], elsewhere: ['/home/me/one'] })).toBe(
      'Undone: b.txt removed (in /home/me/one, its earlier folder).',
    )
    expect(undoneText(false, { paths: ['a.txt', 'a.txt'], elsewhere: ['/home/me/one'], inChatFolder: true })).toBe(
      'Undone: a.txt put back (in the chat’s folder and in /home/me/one, its earlier folder).',
    )
  })

  it('counts the files a run changed, and the folders it made with them apart', () => {
    const made = ['site', 'site/assets', 'site/assets/logo.svg', 'site/index.html']
    expect(runChangeText({ paths: made, created: made })).toBe('This run created site/assets/logo.svg and site/index.html (and 2 folders)')
    const gone = ['docs', 'docs/a.md']
    expect(runChangeText({ paths: gone, deleted: gone })).toBe('This run deleted docs/a.md (and a folder)')
    expect(runChangeText({ paths: ['empty'], created: ['empty'] })).toBe('This run created empty') // make_dir: the folder is what it made
    expect(runChangeText({ paths: ['site.old', 'site/a'] })).toBe('This run edited site.old and site/a') // a name is no folder of another's prefix
  })

  it('names each Restore to here after its message', async () => {
    await mount()
    const restore = screen.getAllByTestId('restore-here')[0]
    expect(restore.getAttribute('aria-label')).toMatch(/^Restore to here, before “.+”$/)
  })
})

describe('the settings', () => {
  it('list the tools always allowed per workspace and revoke them on save', async () => {
    const backend = new FakeBackend()
    backend.cfg = { ...backend.cfg, saved: { ...backend.cfg.saved, alwaysAllow: { '/home/me/site': ['write_file', 'delete_path'] } } }
    const store = new AppStore({ backend, requestFrame: new FakeFrames().request })
    await act(() => store.start())
    const { SettingsPanel } = await import('./SettingsPanel')
    render(
      <StoreContext.Provider value={store}>
        <SettingsPanel config={store.getState().config!} onClose={() => {}} />
      </StoreContext.Provider>,
    )
    expect(screen.getByTestId('always-allowed').textContent).toContain('/home/me/site')
    fireEvent.click(screen.getByRole('button', { name: 'Revoke delete_path in /home/me/site' }))
    await act(async () => fireEvent.click(screen.getByRole('button', { name: 'Save' })))
    const saved = backend.calls.find((c) => c.method === 'SaveSettings')?.args[0] as { alwaysAllow: Record<string, string[]> }
    expect(saved.alwaysAllow).toEqual({ '/home/me/site': ['write_file'] })
  })
})

describe('an undo with nothing to take back', () => {
  it('says so as an error, without offering to keep or overwrite', async () => {
    const backend = new FakeBackend()
    backend.undoError = 'nothing to undo: no file the agent changed in this chat is left to put back'
    const store = new AppStore({ backend, requestFrame: new FakeFrames().request })
    await act(() => store.undo({}, 'c1'))
    expect(store.getState().undoConflict).toBeNull()
    expect(store.getState().error).toContain('Nothing to undo')
  })
})
