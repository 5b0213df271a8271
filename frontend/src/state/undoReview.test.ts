import { describe, expect, it } from 'vitest'
import type { AgentEvent } from '../backend'
import { FakeBackend } from '../fakeBackend'
import { StateCell } from './appState'
import { UndoReview } from './undoReview'

describe('undo and the review', () => {
  it('say what an undo put back, in the chat it was done in', async () => {
    const backend = new FakeBackend()
    backend.undoResult = { changeId: 'x', reverts: [], paths: ['a.txt', 'b.txt'] }
    const cell = new StateCell(backend)
    const undo = new UndoReview(cell)
    await undo.undo({}, 'c1')
    expect(cell.get().undoNote).toEqual({ chatId: 'c1', text: 'Undone: a.txt and b.txt put back.', seq: 0 })
  })

  it('drop the note when its chat runs again, even a run that starts and ends in one batch', async () => {
    const backend = new FakeBackend()
    backend.undoResult = { changeId: 'x', reverts: [], paths: ['b.txt'] }
    const cell = new StateCell(backend)
    const undo = new UndoReview(cell)
    await undo.undo({}, 'c1')
    const ev = (seq: number, type: AgentEvent['type'], chatId = 'c1'): AgentEvent => ({ v: 1, seq, chatId, at: '', type, runId: 'r2' })
    undo.follow('c2', [ev(1, 'run.started', 'c2')])
    expect(cell.get().undoNote?.chatId).toBe('c1')
    undo.follow('c1', [ev(1, 'run.started'), ev(2, 'phase'), ev(3, 'run.finished'), ev(4, 'phase')])
    expect(cell.get().undoNote).toBeNull()
  })

  it('keep a refusal because files changed since open, then do what the user chose', async () => {
    const backend = new FakeBackend()
    backend.undoError = 'nothing was undone: a.txt changed since'
    const cell = new StateCell(backend)
    const undo = new UndoReview(cell)
    await undo.undo({}, 'c1')
    expect(cell.get().undoConflict).toMatchObject({ chatId: 'c1', redo: false, message: 'Nothing was undone: a.txt changed since' })
    expect(cell.get().error).toBe('')
    backend.undoError = ''
    await undo.resolveConflict('force')
    expect(backend.callsOf('Undo')).toEqual([['c1', {}], ['c1', { force: true }]])
    expect(cell.get().undoConflict).toBeNull()
  })

  it('read the open review again when a run of its chat finishes, and only then', async () => {
    const backend = new FakeBackend()
    const cell = new StateCell(backend)
    const review = new UndoReview(cell)
    await review.loadReview('c1')
    const finished: AgentEvent = { v: 1, seq: 1, chatId: 'c1', at: '', type: 'run.finished' }
    review.follow('c2', [{ ...finished, chatId: 'c2' }])
    review.follow('c1', [{ ...finished, type: 'phase' }])
    expect(backend.callsOf('ChatChanges')).toHaveLength(1)
    review.follow('c1', [finished])
    expect(backend.callsOf('ChatChanges')).toHaveLength(2)
    review.closeReview()
    expect(cell.get().review).toBeNull()
  })
})
