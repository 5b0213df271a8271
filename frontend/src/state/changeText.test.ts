import { describe, expect, it } from 'vitest'
import type { AgentEvent, OpenedChat } from '../backend'
import { filesAndFolders, pathList, runChangeText, undoneText } from './changeText'
import { chatFromSnapshot, emptyChat, reduceChat, standingChange } from './chatReducer'

function ev(seq: number, e: Partial<AgentEvent> & Pick<AgentEvent, 'type'>): AgentEvent {
  return { v: 1, seq, chatId: 'c1', runId: 'r1', messageId: 'm1', at: '2025-01-01T00:00:00Z', ...e }
}

describe('the sentences of a change', () => {
  it('name files and count the folders that hold them apart', () => {
    expect(filesAndFolders(['site', 'site/index.html'])).toEqual({ files: ['site/index.html'], folders: ['site'] })
    expect(runChangeText({ paths: ['site', 'site/index.html'], created: ['site', 'site/index.html'] })).toBe(
      'This run created site/index.html (and a folder)',
    )
  })

  it('say what a run did to each path: created, edited, deleted', () => {
    expect(runChangeText({ paths: ['a.txt', 'b.txt', 'old.txt'], created: ['a.txt'], deleted: ['old.txt'] })).toBe(
      'This run created a.txt, edited b.txt and deleted old.txt',
    )
    expect(runChangeText({ paths: ['old.txt'], deleted: ['old.txt'] })).toBe('This run deleted old.txt')
    expect(runChangeText({ paths: ['a.txt', 'b.txt', 'old.txt'], created: ['a.txt', 'b.txt'], deleted: ['old.txt'] })).toBe(
      'This run created a.txt and b.txt, and deleted old.txt',
    )
    // a folder kept while a file in it was deleted: the folder is counted, not named "nothing"
    expect(runChangeText({ paths: ['lib', 'lib/x.js'], deleted: ['lib/x.js'] })).toBe('This run edited a folder and deleted lib/x.js')
  })

  it('say the same words live as the run goes and when the chat is opened again', () => {
    const live = [
      ev(1, { type: 'checkpoint', toolCallId: 't1', paths: ['a.txt'], created: ['a.txt'] }),
      ev(2, { type: 'tool.result', toolCallId: 't1', ok: true, paths: ['a.txt'], created: ['a.txt'] }),
      ev(3, { type: 'checkpoint', toolCallId: 't2', paths: ['b.txt', 'old.txt'] }),
      ev(4, { type: 'tool.result', toolCallId: 't2', ok: true, paths: ['b.txt', 'old.txt'], deleted: ['b.txt', 'old.txt'] }),
      // a later call writes b.txt again: the run edited it, it no longer deleted it
      ev(5, { type: 'tool.result', toolCallId: 't3', ok: true, paths: ['b.txt'] }),
      // a call that failed: the run left tmp.txt as it was
      ev(6, { type: 'checkpoint', toolCallId: 't4', paths: ['tmp.txt'], created: ['tmp.txt'] }),
      ev(7, { type: 'tool.result', toolCallId: 't4', ok: false, unchanged: ['tmp.txt'] }),
    ].reduce(reduceChat, emptyChat('c1'))
    const opened: OpenedChat = {
      chat: { id: 'c1', title: 'Chat', createdAt: '', updatedAt: '', messageCount: 0, phase: 'idle' },
      messages: [],
      toolCalls: [],
      phase: 'idle',
      liveRunId: '',
      changes: [{ id: 'r1', kind: 'run', paths: ['a.txt', 'b.txt', 'old.txt'], created: ['a.txt'], deleted: ['old.txt'] }],
    }
    const said = 'This run created a.txt, edited b.txt and deleted old.txt'
    expect(runChangeText(standingChange(live, 'r1')!)).toBe(said)
    expect(runChangeText(standingChange(chatFromSnapshot(opened, 'c1'), 'r1')!)).toBe(said)
  })

  it('say one change for a run resumed after an approval, under the resumed part', () => {
    const live = [
      ev(1, { type: 'run.started' }),
      ev(2, { type: 'checkpoint', toolCallId: 't1', paths: ['a.txt'], created: ['a.txt'] }),
      ev(3, { type: 'tool.result', toolCallId: 't1', ok: true, paths: ['a.txt'], created: ['a.txt'] }),
      ev(4, { type: 'run.started', runId: 'r2', changeId: 'r1', trigger: 'approval' }),
      ev(5, { type: 'checkpoint', runId: 'r2', toolCallId: 't2', paths: ['b.txt'] }),
      ev(6, { type: 'tool.result', runId: 'r2', toolCallId: 't2', ok: true, paths: ['b.txt'] }),
    ].reduce(reduceChat, emptyChat('c1'))
    expect(live.changes.map((c) => c.id)).toEqual(['r2'])
    expect(runChangeText(standingChange(live, 'r2')!)).toBe('This run created a.txt and edited b.txt')
  })

  it('name at most four paths', () => {
    expect(pathList([])).toBe('nothing')
    expect(pathList(['a', 'b'])).toBe('a and b')
    expect(pathList(['a', 'b', 'c', 'd', 'e', 'f'])).toBe('a, b, c and 3 more')
  })

  it('say what an undo put back and removed, and where', () => {
    expect(undoneText(false, { paths: ['a', 'b'], removed: ['b'], elsewhere: ['/old'], inChatFolder: true })).toBe(
      'Undone: a put back; b removed (in the chat’s folder and in /old, its earlier folder).',
    )
  })
})
