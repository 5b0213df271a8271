// Unsent text: what is typed in a chat's box and not sent is kept by the Go side a moment after
// the typing pauses (draftSaveMs), and at once when the app quits: quitting loses none of it.
// A box emptied by sending its message is kept empty once the Go side took the message (stored
// it, or kept it queued), not before: a window killed in between finds the text still in the box.

import type { Backend } from '../backend'

/** How long after the last key typed the unsent text of a chat is kept. */
export const draftSaveMs = 300

export class Drafts {
  private drafts = new Map<string, string>()
  private saves = new Map<string, ReturnType<typeof setTimeout>>()
  /** Chats whose message is being sent, and whether their box was emptied meanwhile. */
  private sends = new Map<string, { emptied: boolean }>()

  constructor(private readonly backend: Backend) {}

  /** The unsent text of a chat ('' for the chat a first message starts), as last typed. */
  draftOf = (chatId: string): string => this.drafts.get(chatId) ?? ''

  /** The box of chatId holds text now; it is kept once the typing pauses. */
  draftChanged = (chatId: string, text: string): void => {
    if (this.draftOf(chatId) === text) return
    this.drafts.set(chatId, text)
    clearTimeout(this.saves.get(chatId))
    // a box emptied (its message sent) is kept at once, or once its message was taken: a window
    // closed right after a message was sent does not give its text back as unsent
    const sending = this.sends.get(chatId)
    if (text === '' && sending) sending.emptied = true
    else if (text === '') void this.save(chatId)
    else this.saves.set(chatId, setTimeout(() => void this.save(chatId), draftSaveMs))
  }

  /** The message of chatId's box is being sent (sent settles once the Go side took it or not). */
  sending = (chatId: string, sent: Promise<unknown>): void => {
    const mark = { emptied: false }
    this.sends.set(chatId, mark)
    const settled = () => {
      if (this.sends.get(chatId) === mark) this.sends.delete(chatId)
      if (mark.emptied && this.draftOf(chatId) === '') void this.save(chatId)
    }
    sent.then(settled, settled)
  }

  /** Keeps every unsent text not kept yet, now. */
  async flush(): Promise<void> {
    const emptied = [...this.sends].filter(([, mark]) => mark.emptied).map(([id]) => id)
    const pending = [...new Set([...this.saves.keys(), ...emptied])]
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
