// Versions of a chat's history: edit and resend a user message, regenerate an answer, retry
// after an error, and show an earlier version. What a new version replaces stays reachable.

import type { Version } from '../backend'
import type { StateCell } from './appState'
import { chatFromSnapshot, type ChatState, type TimelineEntry } from './chatReducer'

/** Keeps the messages of a chat that start one of several versions of its history. */
export function setVersions(cell: StateCell, chatId: string, versions: Version[] | null | undefined): void {
  cell.set({ versions: { ...cell.get().versions, [chatId]: versions ?? [] } })
}

export class Versions {
  /** refreshChats lists the chats again (a new version changes the chat's summary). */
  constructor(
    private readonly cell: StateCell,
    private readonly hooks: { refreshChats(): Promise<void> },
  ) {}

  /**
   * Sends text in place of the user message messageId: the chat goes on from there, and what
   * followed stays reachable as an earlier version.
   */
  async editAndResend(messageId: string, text: string): Promise<void> {
    const chatId = this.cell.get().activeChatId
    const content = text.trim()
    if (!chatId || !content) return
    try {
      const id = await this.storedId(chatId, messageId)
      const chat = this.cell.get().chats[chatId]
      const at = chat ? chat.timeline.findIndex((e) => e.kind === 'message' && e.id === id) : -1
      if (!chat || at < 0) return
      const isUser = (c: ChatState, e: TimelineEntry) => e.kind === 'message' && c.messages[e.id]?.role === 'user'
      const usersBefore = chat.timeline.slice(0, at).filter((e) => isUser(chat, e)).length
      await this.cell.backend.editAndResend(chatId, id, content)
      // The edited message is stored when the call returns: the chat is read again for its id
      // and its versions; what the run sent meanwhile follows it.
      const opened = await this.cell.backend.openChat(chatId)
      const snap = chatFromSnapshot(opened, chatId)
      const newId = snap.timeline.filter((e) => isUser(snap, e))[usersBefore]?.id
      const now = this.cell.get().chats[chatId] ?? chat
      const before = new Set(chat.timeline.map((e) => `${e.kind}:${e.id}`))
      const added = now.timeline.filter((e) => !before.has(`${e.kind}:${e.id}`) && e.id !== newId)
      const kept = now.timeline.slice(0, at)
      const messages = { ...now.messages }
      let timeline = kept
      if (newId && snap.messages[newId]) {
        messages[newId] = snap.messages[newId]
        timeline = [...kept, { kind: 'message', id: newId }]
      }
      // the runs put aside with the earlier version, and their undos, are no longer undone or redone from here
      const elsewhere = new Set(snap.changes.filter((c) => c.otherVersion).map((c) => c.id))
      const changes = now.changes.map((c) => (elsewhere.has(c.id) ? { ...c, otherVersion: true } : c))
      this.cell.setChat(chatId, { ...now, messages, timeline: [...timeline, ...added], changes })
      setVersions(this.cell, chatId, opened.versions)
      void this.hooks.refreshChats()
    } catch (err) {
      this.cell.fail(err)
    }
  }

  /** Opens a user message of the open chat for editing ('' closes it). */
  edit = (messageId: string): void => this.cell.set({ editing: messageId })

  /**
   * Opens the last message the user wrote in the open chat for editing (↑ in an empty
   * composer); false when there is none or the chat runs.
   */
  editLast = (): boolean => {
    const chat = this.openChat()
    if (!chat || chat.phase !== 'idle') return false
    for (let i = chat.timeline.length - 1; i >= 0; i--) {
      const e = chat.timeline[i]
      if (e.kind === 'message' && chat.messages[e.id]?.role === 'user') {
        this.edit(e.id)
        return true
      }
    }
    return false
  }

  /**
   * Retry after an error: sends the last message of the user again, as a new version of
   * the chat from there (what the failed attempt left stays reachable).
   */
  async retry(): Promise<void> {
    const chat = this.openChat()
    if (!chat || chat.phase !== 'idle') return
    for (let i = chat.timeline.length - 1; i >= 0; i--) {
      const e = chat.timeline[i]
      const m = e.kind === 'message' ? chat.messages[e.id] : undefined
      if (m?.role === 'user') return this.editAndResend(m.id, m.content)
    }
  }

  /** Sends again the user message an answer replied to: a new version of the answer. */
  async regenerate(answerId: string): Promise<void> {
    const chat = this.openChat()
    if (!chat) return
    const at = chat.timeline.findIndex((e) => e.id === answerId)
    for (let i = at - 1; i >= 0; i--) {
      const e = chat.timeline[i]
      const m = e.kind === 'message' ? chat.messages[e.id] : undefined
      if (m?.role === 'user') return this.editAndResend(m.id, m.content)
    }
  }

  /** Shows version `index` (1-based) of the history at the message that starts the one shown. */
  async showVersion(messageId: string, index: number): Promise<void> {
    const s = this.cell.get()
    const chatId = s.activeChatId
    const chat = chatId ? s.chats[chatId] : undefined
    const v = chatId ? s.versions[chatId]?.find((x) => x.messageId === messageId) : undefined
    if (!chatId || !chat || !v || index < 1 || index > v.count || index === v.index) return
    try {
      const opened = await this.cell.backend.showVersion(chatId, messageId, index)
      this.cell.setChat(chatId, { ...chatFromSnapshot(opened, chatId), lastSeq: chat.lastSeq, recentSeqs: chat.recentSeqs })
      setVersions(this.cell, chatId, opened.versions)
      void this.hooks.refreshChats()
    } catch (err) {
      this.cell.fail(err)
    }
  }

  private openChat(): ChatState | undefined {
    const s = this.cell.get()
    return s.activeChatId ? s.chats[s.activeChatId] : undefined
  }

  /**
   * The stored id of a message shown in the open chat. A message typed in this window keeps
   * the id it was shown with until the chat is read again: then it is read again (the chat is
   * idle) and found at the same place among the user's messages.
   */
  private async storedId(chatId: string, id: string): Promise<string> {
    if (!id.startsWith('local:')) return id
    const before = this.cell.get().chats[chatId]
    const users = (c: ChatState) => c.timeline.filter((e) => e.kind === 'message' && c.messages[e.id]?.role === 'user').map((e) => e.id)
    const at = before ? users(before).indexOf(id) : -1
    const opened = await this.cell.backend.openChat(chatId)
    const fresh = { ...chatFromSnapshot(opened, chatId), lastSeq: before?.lastSeq ?? 0, recentSeqs: before?.recentSeqs ?? [] }
    this.cell.setChat(chatId, fresh)
    setVersions(this.cell, chatId, opened.versions)
    return users(fresh)[at] ?? ''
  }
}
