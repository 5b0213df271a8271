// Unsent text: what is typed in a chat's box and not sent is kept by the Go side a moment after
// the typing pauses (draftSaveMs), and at once when the app quits: quitting loses none of it.

import type { Backend } from '../backend'

/** How long after the last key typed the unsent text of a chat is kept. */
export const draftSaveMs = 300

export class Drafts {
  private drafts = new Map<string, string>()
  private saves = new Map<string, ReturnType<typeof setTimeout>>()

  constructor(private readonly backend: Backend) {}

  /** The unsent text of a chat ('' for the chat a first message starts), as last typed. */
  draftOf = (chatId: string): string => this.drafts.get(chatId) ?? ''

  /** The box of chatId holds text now; it is kept once the typing pauses. */
  draftChanged = (chatId: string, text: string): void => {
    if (this.draftOf(chatId) === text) return
    this.drafts.set(chatId, text)
    clearTimeout(this.saves.get(chatId))
    // a box emptied (its message sent) is kept at once: a window closed right after a message
    // was sent does not give its text back as unsent
    if (text === '') void this.save(chatId)
    else this.saves.set(chatId, setTimeout(() => void this.save(chatId), draftSaveMs))
  }

  /** Keeps every unsent text not kept yet, now. */
  async flush(): Promise<void> {
    const pending = [...this.saves.keys()]
    for (const id of pending) clearTimeout(this.saves.get(id))
    await Promise.all(pending.map((id) => this.save(id)))
  }

  /** Reads the texts kept by the Go side; a text typed meanwhile wins. */
  async load(): Promise<void> {
    try {
      for (const [id, text] of Object.entries(await this.backend.drafts())) if (!this.drafts.has(id)) this.drafts.set(id, text)
    } catch {
      // without them the boxes start empty, as before
    }
  }

  private async save(chatId: string): Promise<void> {
    this.saves.delete(chatId)
    try {
      await this.backend.saveDraft(chatId, this.draftOf(chatId))
    } catch {
      // the text stays in the box; the next key typed tries again
    }
  }
}
