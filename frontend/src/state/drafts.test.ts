import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { FakeBackend } from '../fakeBackend'
import { Drafts, draftSaveMs } from './drafts'

describe('unsent text', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('is kept once the typing pauses, once per pause', async () => {
    const backend = new FakeBackend()
    const drafts = new Drafts(backend)
    drafts.draftChanged('c1', 'h')
    drafts.draftChanged('c1', 'he')
    expect(backend.callsOf('SaveDraft')).toEqual([])
    await vi.advanceTimersByTimeAsync(draftSaveMs)
    expect(backend.callsOf('SaveDraft')).toEqual([['c1', 'he']])
    expect(drafts.draftOf('c1')).toBe('he')
  })

  it('is kept at once when the box is emptied, and every pending text on flush', async () => {
    const backend = new FakeBackend()
    const drafts = new Drafts(backend)
    drafts.draftChanged('c1', 'a')
    drafts.draftChanged('c2', 'b')
    drafts.draftChanged('c1', '')
    await drafts.flush()
    expect(backend.callsOf('SaveDraft')).toEqual([
      ['c1', ''],
      ['c2', 'b'],
    ])
  })

  it('keeps a box emptied by sending its message empty only once the message was taken', async () => {
    const backend = new FakeBackend()
    const drafts = new Drafts(backend)
    drafts.draftChanged('c1', 'then shorter')
    await vi.advanceTimersByTimeAsync(draftSaveMs)
    let took: () => void = () => {}
    drafts.sending('c1', new Promise<void>((resolve) => (took = resolve)))
    drafts.draftChanged('c1', '')
    await vi.advanceTimersByTimeAsync(draftSaveMs)
    // a window killed now finds the text in its box after a restart
    expect(backend.callsOf('SaveDraft')).toEqual([['c1', 'then shorter']])
    took()
    await vi.advanceTimersByTimeAsync(0)
    expect(backend.callsOf('SaveDraft')).toEqual([
      ['c1', 'then shorter'],
      ['c1', ''],
    ])
  })

  it('keeps the text of a message the Go side refused, given back to the box', async () => {
    const backend = new FakeBackend()
    const drafts = new Drafts(backend)
    drafts.sending('c1', Promise.reject(new Error('refused')))
    drafts.draftChanged('c1', '')
    drafts.draftChanged('c1', 'then shorter') // the box gives the text back
    await vi.advanceTimersByTimeAsync(draftSaveMs)
    expect(backend.callsOf('SaveDraft')).toEqual([['c1', 'then shorter']])
  })

  it('reads the texts the Go side kept, a text typed meanwhile winning', async () => {
    const backend = new FakeBackend()
    backend.savedDrafts = { c1: 'kept', c2: 'old' }
    const drafts = new Drafts(backend)
    drafts.draftChanged('c2', 'new')
    await drafts.load()
    expect(drafts.draftOf('c1')).toBe('kept')
    expect(drafts.draftOf('c2')).toBe('new')
  })

  it('keeps the box’s images at once, in order, and an emptied box’s only once its message was taken', async () => {
    const backend = new FakeBackend()
    const drafts = new Drafts(backend)
    drafts.imagesChanged('c1', ['A'])
    drafts.imagesChanged('c1', ['A', 'B'])
    drafts.imagesChanged('c1', ['A', 'B']) // the same: nothing to keep
    await vi.advanceTimersByTimeAsync(0)
    expect(backend.callsOf('SaveDraftImages')).toEqual([
      ['c1', ['A']],
      ['c1', ['A', 'B']],
    ])
    let took: () => void = () => {}
    drafts.sending('c1', new Promise<void>((resolve) => (took = resolve)))
    drafts.imagesChanged('c1', [])
    await vi.advanceTimersByTimeAsync(0)
    // a window killed now finds the images in its box after a restart
    expect(backend.savedDraftImages.c1).toEqual(['A', 'B'])
    took()
    await vi.advanceTimersByTimeAsync(0)
    expect(backend.savedDraftImages.c1).toBeUndefined()
  })

  it('reads the images the Go side kept, those the box was given meanwhile winning', async () => {
    const backend = new FakeBackend()
    backend.savedDraftImages = { c1: ['kept'], c2: ['old'] }
    const drafts = new Drafts(backend)
    drafts.imagesChanged('c2', ['new'])
    await drafts.load()
    expect(drafts.imagesOf('c1')).toEqual(['kept'])
    expect(drafts.imagesOf('c2')).toEqual(['new'])
  })

  it('keeps the box as it was before a send still in flight when the app quits, text and images', async () => {
    const backend = new FakeBackend()
    const drafts = new Drafts(backend)
    drafts.imagesChanged('c1', ['A'])
    drafts.draftChanged('c1', 'look') // Enter comes before the typing pause
    drafts.sending('c1', new Promise<void>(() => {})) // the quit refuses it after the flush
    drafts.draftChanged('c1', '')
    drafts.imagesChanged('c1', [])
    await drafts.flush()
    expect(backend.savedDrafts.c1).toBe('look')
    expect(backend.savedDraftImages.c1).toEqual(['A'])
  })

  it('never keeps the box empty for a message the Go side refused', async () => {
    const backend = new FakeBackend()
    const drafts = new Drafts(backend)
    drafts.draftChanged('c1', 'look')
    drafts.imagesChanged('c1', ['A'])
    await vi.advanceTimersByTimeAsync(draftSaveMs)
    let refuse: () => void = () => {}
    drafts.sending('c1', new Promise<void>((_, reject) => (refuse = () => reject(new Error('refused')))))
    drafts.draftChanged('c1', '')
    drafts.imagesChanged('c1', [])
    refuse()
    await vi.advanceTimersByTimeAsync(0)
    // a kill now, before the box puts the message back, finds it stored
    expect(backend.savedDrafts.c1).toBe('look')
    expect(backend.savedDraftImages.c1).toEqual(['A'])
  })

  it('keeps the text last typed when the Go side answers the saves out of order', async () => {
    const backend = new FakeBackend()
    const answers: (() => void)[] = []
    // each save lands when it is answered: the first is answered last
    backend.saveDraft = (chatId: string, text: string) =>
      new Promise<void>((resolve) => {
        answers.push(() => {
          backend.savedDrafts[chatId] = text
          resolve()
        })
      })
    const drafts = new Drafts(backend)
    drafts.draftChanged('c1', 'look at the')
    await vi.advanceTimersByTimeAsync(draftSaveMs) // a pause in the typing: saved
    drafts.draftChanged('c1', 'look at the header')
    await vi.advanceTimersByTimeAsync(draftSaveMs) // and another, the first save not answered yet
    for (let i = 0; i < 10 && answers.length > 0; i++) {
      answers.pop()?.()
      await vi.advanceTimersByTimeAsync(0)
    }
    await drafts.flush()
    expect(backend.savedDrafts.c1).toBe('look at the header')
  })

  it('keeps the images last put in the box when the Go side answers the saves out of order', async () => {
    const backend = new FakeBackend()
    const answers: (() => void)[] = []
    // each save lands when it is answered: the first is answered last
    backend.saveDraftImages = (chatId: string, images: string[]) =>
      new Promise<void>((resolve) => {
        answers.push(() => {
          backend.savedDraftImages[chatId] = images
          resolve()
        })
      })
    const drafts = new Drafts(backend)
    drafts.imagesChanged('c1', ['A'])
    drafts.imagesChanged('c1', ['A', 'B'])
    const done = drafts.flush()
    await vi.advanceTimersByTimeAsync(0)
    for (let i = 0; i < 10 && answers.length > 0; i++) {
      answers.pop()?.()
      await vi.advanceTimersByTimeAsync(0)
    }
    await done
    expect(backend.savedDraftImages.c1).toEqual(['A', 'B'])
  })

  it('keeps a box emptied by a taken message empty only after the text kept as it was sent', async () => {
    const backend = new FakeBackend()
    const answers: (() => void)[] = []
    const save = backend.saveDraft.bind(backend)
    backend.saveDraft = (chatId: string, text: string) => new Promise<void>((resolve) => answers.push(() => void save(chatId, text).then(resolve)))
    const drafts = new Drafts(backend)
    drafts.draftChanged('c1', 'look') // Enter comes before the typing pause
    drafts.sending('c1', Promise.resolve())
    drafts.draftChanged('c1', '')
    await vi.advanceTimersByTimeAsync(0)
    expect(answers).toHaveLength(1) // the emptied box waits for the text kept before it
    answers[0]()
    await vi.advanceTimersByTimeAsync(0)
    answers[1]?.()
    await vi.advanceTimersByTimeAsync(0)
    expect(backend.callsOf('SaveDraft')).toEqual([
      ['c1', 'look'],
      ['c1', ''],
    ])
  })
})
