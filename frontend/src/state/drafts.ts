// Unsent text: what is typed in a chat's box and not sent is kept by the Go side a moment after
// the typing pauses (draftSaveMs), and at once when the app quits: quitting loses none of it.
// A box emptied by sending its message is kept empty once the Go side took the message (stored
// it, or kept it queued), not before: a window killed in between finds the text still in the box.
// The box's images follow the same rules, but are kept at once as they change (they change
// seldom, and a paste is what the user least wants to redo), in a store of their own. A chat's
// saves land in the order they were made, texts and images each: the Go side takes every call
// on a goroutine of its own, so two saves in flight could otherwise land the older last.

import type { Backend } from '../backend'

/** How long after the last key typed the unsent text of a chat is kept. */
export const draftSaveMs = 300

/** The unsent texts and images the Go side kept, by chat ('' the chat a first message starts). */
export interface Kept {
  texts: Record<string, string>
  images: Record<string, string[]>
}

export class Drafts {
  private drafts = new Map<string, string>()
  private saves = new Map<string, ReturnType<typeof setTimeout>>()
  private images = new Map<string, string[]>()
  /** The last save of each chat's text, and of its images: the next waits for it. */
  private textSaves = new Map<string, Promise<void>>()
  private imageSaves = new Map<string, Promise<void>>()
  /** Chats whose message is being sent, and whether their box (text, images) was emptied meanwhile. */
  private sends = new Map<string, { emptied: boolean; imagesEmptied: boolean }>()

  constructor(private readonly backend: Backend) {}

  /** The unsent text of a chat ('' for the chat a first message starts), as last typed. */
  draftOf = (chatId: string): string => this.drafts.get(chatId) ?? ''

  /** The box of chatId holds text now; it is kept once the typing pauses. */
  draftChanged = (chatId: string, text: string): void => {
    if (this.draftOf(chatId) === text) return
    this.drafts.set(chatId, text)
    clearTimeout(this.saves.get(chatId))
    this.saves.delete(chatId)
    // a box emptied (its message sent) is kept at once, or once its message was taken: a window
    // closed right after a message was sent does not give its text back as unsent
    const sending = this.sends.get(chatId)
    if (text === '' && sending) sending.emptied = true
    else if (text === '') void this.save(chatId)
    else this.saves.set(chatId, setTimeout(() => void this.save(chatId), draftSaveMs))
  }

  /** The images (base64) of the unsent text of a chat, as last put in its box. */
  imagesOf = (chatId: string): string[] => this.images.get(chatId) ?? []

  /** The box of chatId holds these images now; they are kept at once (emptied: as its text is). */
  imagesChanged = (chatId: string, images: string[]): void => {
    const was = this.imagesOf(chatId)
    if (was.length === images.length && was.every((img, i) => img === images[i])) return
    this.images.set(chatId, images)
    const sending = this.sends.get(chatId)
    if (images.length === 0 && sending) sending.imagesEmptied = true
    else void this.saveImages(chatId)
  }

  /** Puts text (a blank line apart) and images after those chatId's box keeps, as if typed there. */
  giveBack = (chatId: string, text: string, images: string[]): void => {
    if (text) this.draftChanged(chatId, [this.draftOf(chatId), text].filter((t) => t.trim()).join('\n\n'))
    if (images.length) this.imagesChanged(chatId, [...this.imagesOf(chatId), ...images])
  }

  /**
   * The message of chatId's box is being sent (sent settles once the Go side took it or not).
   * Called before the box is emptied: the text it holds now, if not kept yet, is kept at once, so
   * that until the message is taken the stored box is the box as it was before the send.
   */
  sending = (chatId: string, sent: Promise<unknown>): void => {
    let before = Promise.resolve()
    if (this.saves.has(chatId)) {
      clearTimeout(this.saves.get(chatId))
      before = this.save(chatId)
    }
    const mark = { emptied: false, imagesEmptied: false }
    this.sends.set(chatId, mark)
    const done = () => {
      if (this.sends.get(chatId) === mark) this.sends.delete(chatId)
    }
    const taken = () => {
      done()
      if (mark.imagesEmptied && this.imagesOf(chatId).length === 0) void this.saveImages(chatId)
      // after the text kept just above: the emptied box is the last word
      if (mark.emptied) void before.then(() => (this.draftOf(chatId) === '' ? this.save(chatId) : undefined))
    }
    // refused: the box gets its message back, and what is stored is what it will hold again
    sent.then(taken, done)
  }

  /**
   * Keeps every unsent text not kept yet, now, and waits for the images being kept. A box emptied
   * by a send still in flight is not kept empty: its message may yet be refused (a quit refuses it).
   */
  async flush(): Promise<void> {
    const pending = [...this.saves.keys()]
    for (const id of pending) clearTimeout(this.saves.get(id))
    await Promise.all([...pending.map((id) => this.save(id)), ...this.textSaves.values(), ...this.imageSaves.values()])
  }

  /**
   * Reads the texts and images kept by the Go side, and returns them. A box typed in (or given
   * text) meanwhile keeps what it holds: the caller gives the open box what was kept, after it.
   */
  async load(): Promise<Kept> {
    const [texts, images] = await Promise.all([
      this.backend.drafts().catch((): Record<string, string> => ({})), // without them the boxes start empty, as before
      this.backend.draftImages().catch((): Record<string, string[]> => ({})),
    ])
    for (const [id, text] of Object.entries(texts)) if (!this.drafts.has(id)) this.drafts.set(id, text)
    for (const [id, pics] of Object.entries(images)) if (!this.images.has(id)) this.images.set(id, pics)
    return { texts, images }
  }

  /** Keeps the text chatId's box holds now, once the save before it is done. */
  private save(chatId: string): Promise<void> {
    this.saves.delete(chatId)
    const text = this.draftOf(chatId)
    // failed: the text stays in the box; the next key typed tries again
    return this.inOrder(this.textSaves, chatId, () => this.backend.saveDraft(chatId, text))
  }

  /** Keeps the images chatId's box holds now, once the save before it is done. */
  private saveImages(chatId: string): Promise<void> {
    const images = this.imagesOf(chatId)
    // failed: the images stay in the box; the next change keeps them again
    return this.inOrder(this.imageSaves, chatId, () => this.backend.saveDraftImages(chatId, images))
  }

  /** Runs write once the last one saves holds for chatId has landed, failed or not. */
  private inOrder(saves: Map<string, Promise<void>>, chatId: string, write: () => Promise<unknown>): Promise<void> {
    const saved = (saves.get(chatId) ?? Promise.resolve()).then(write).then(
      () => undefined,
      () => undefined,
    )
    saves.set(chatId, saved)
    void saved.then(() => {
      if (saves.get(chatId) === saved) saves.delete(chatId)
    })
    return saved
  }
}
