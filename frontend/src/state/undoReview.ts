// Undo, redo and the review of a chat's changed files ("Changes"). A refusal because files
// changed since is kept in undoConflict, so the window can offer to keep the user's version
// beside the restored one, or to overwrite it.

import type { AgentEvent, UndoOptions } from '../backend'
import { errorText } from '../backend'
import type { StateCell } from './appState'
import { undoneText } from './changeText'

export class UndoReview {
  constructor(private readonly cell: StateCell) {}

  /** Takes back what the chat's runs changed (the newest run by default; see UndoOptions). */
  async undo(opts: UndoOptions = {}, chatId = this.cell.get().activeChatId ?? ''): Promise<void> {
    await this.revert(chatId, false, opts)
  }

  async redo(opts: UndoOptions = {}, chatId = this.cell.get().activeChatId ?? ''): Promise<void> {
    await this.revert(chatId, true, opts)
  }

  /** Answers a refused undo or redo: keep the user's version beside the restored one, or overwrite it. */
  async resolveConflict(choice: 'keep' | 'force' | 'cancel'): Promise<void> {
    const c = this.cell.get().undoConflict
    if (!c) return
    this.cell.set({ undoConflict: null })
    if (choice === 'cancel') return
    await this.revert(c.chatId, c.redo, { ...c.opts, [choice]: true })
  }

  dismissUndoNote = (): void => this.cell.set({ undoNote: null })

  /** Opens the review of the chat's changed files, or reads it again. */
  async loadReview(chatId = this.cell.get().activeChatId ?? ''): Promise<void> {
    if (!chatId) return
    const open = this.cell.get().review
    this.cell.set({ review: { chatId, files: open?.chatId === chatId ? open.files : [], loading: true } })
    try {
      const files = await this.cell.backend.chatChanges(chatId)
      if (this.cell.get().review?.chatId === chatId) this.cell.set({ review: { chatId, files, loading: false } })
    } catch (err) {
      this.cell.set({ review: null })
      this.cell.fail(err)
    }
  }

  /**
   * The open review follows what a run, an undo or a redo changed in its chat; the note of what
   * an undo did goes once the chat runs again.
   */
  follow(chatId: string, events: AgentEvent[]): void {
    const note = this.cell.get().undoNote
    if (note?.chatId === chatId && events.some((e) => e.type === 'run.started' && e.seq > note.seq)) this.dismissUndoNote()
    if (this.cell.get().review?.chatId === chatId && events.some((e) => e.type === 'run.finished' || e.type === 'undo' || e.type === 'redo'))
      void this.loadReview(chatId)
  }

  closeReview = (): void => this.cell.set({ review: null })

  /**
   * Opens a path of the active chat's workspace with the system's app, or the folder holding it;
   * given the tool call whose card it is on, in the folder that call wrote it in; given the
   * folder the review names for it, in that folder.
   */
  async openPath(path: string, inFolder: boolean, from?: { toolCallId?: string; workspace?: string }): Promise<void> {
    const chatId = this.cell.get().activeChatId
    if (!chatId) return
    const backend = this.cell.backend
    try {
      await (from?.toolCallId
        ? backend.openCallPath(chatId, from.toolCallId, path, inFolder)
        : from?.workspace
          ? backend.openChangedPath(chatId, from.workspace, path, inFolder)
          : backend.openPath(chatId, path, inFolder))
    } catch (err) {
      this.cell.fail(err)
    }
  }

  private async revert(chatId: string, redo: boolean, opts: UndoOptions): Promise<void> {
    if (!chatId) return
    this.cell.set({ undoConflict: null, undoNote: null })
    try {
      const res = redo ? await this.cell.backend.redo(chatId, opts) : await this.cell.backend.undo(chatId, opts)
      const kept = res.kept?.length ? ` Your version is kept in ${res.kept.join(', ')}.` : ''
      const lost = (res.notPutBack ?? []).map((n) => ` ${n.sentence}.`).join('')
      const seq = this.cell.get().chats[chatId]?.lastSeq ?? 0
      this.cell.set({ undoNote: { chatId, text: `${undoneText(redo, res)}${kept}${lost}`, seq } })
      if (this.cell.get().review?.chatId === chatId) void this.loadReview(chatId)
    } catch (err) {
      const message = errorText(err)
      // A refusal because files changed since (agentloop.ConflictError) says nothing was done;
      // so does a Keep refused (a version too large to keep): the choice stays open.
      if ((/^nothing was (undone|redone):/i.test(message) || opts.keep) && !opts.force) {
        this.cell.set({ undoConflict: { chatId, redo, opts: { ...opts, keep: undefined }, message } })
      } else {
        this.cell.fail(err)
      }
    }
  }
}
