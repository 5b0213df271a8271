// The session: which chat is open, the list of chats, sending to the open chat and stopping
// it, and the messages sent while it was busy (queued) until its run takes them.

import type { AgentEvent, ChatHit } from '../backend'
import type { StateCell } from './appState'
import { addLocalUserMessage, chatFromSnapshot, emptyChat, isStoppable, mergeLive, type ChatState } from './chatReducer'
import { setVersions } from './versions'

let localIds = 0

export class Session {
  /** loadBudget asks how long a message to the chat now open may be. */
  constructor(
    private readonly cell: StateCell,
    private readonly hooks: {
      loadBudget(): Promise<void>
      /** Puts text and images after those of chatId's kept box, the box showing another chat. */
      keepUnsent?(chatId: string, text: string, images: string[]): void
      /** Reads the settings in effect again (the folder and model new chats take among them). */
      loadConfig?(): Promise<void>
    },
  ) {}

  async refreshChats(): Promise<void> {
    try {
      const list = await this.cell.backend.listChats()
      // Newest first; parsed, because Go writes a varying number of fraction digits.
      this.cell.set({ chatList: [...list].sort((a, b) => (Date.parse(b.updatedAt) || 0) - (Date.parse(a.updatedAt) || 0)) })
    } catch (err) {
      this.cell.fail(err)
    }
  }

  /**
   * Shows a chat; its history is read from the store the first time. The sentence of an action
   * that failed goes: it was about where the user was.
   */
  async selectChat(id: string | null): Promise<void> {
    if (id !== this.cell.get().activeChatId) this.cell.dismissError()
    this.cell.set({ activeChatId: id })
    this.rememberOpenChat()
    void this.hooks.loadBudget()
    if (id === null || this.cell.get().chats[id]?.loaded) return
    try {
      const opened = await this.cell.backend.openChat(id)
      this.cell.setChat(id, mergeLive(chatFromSnapshot(opened, id), this.cell.get().chats[id]))
      setVersions(this.cell, id, opened.versions)
    } catch (err) {
      this.cell.fail(err)
    }
  }

  /** Starts an empty chat view; the chat is created by the first Send. */
  newChat(): void {
    if (this.cell.get().activeChatId !== null) this.cell.dismissError()
    this.cell.set({ activeChatId: null })
    this.rememberOpenChat()
    void this.hooks.loadBudget()
  }

  async renameChat(id: string, title: string): Promise<void> {
    try {
      await this.cell.backend.renameChat(id, title)
      this.cell.set({ chatList: this.cell.get().chatList.map((c) => (c.id === id ? { ...c, title } : c)) })
    } catch (err) {
      this.cell.fail(err)
    }
  }

  async deleteChat(id: string): Promise<void> {
    try {
      await this.cell.backend.deleteChat(id)
      const s = this.cell.get()
      const chats = { ...s.chats }
      delete chats[id]
      this.cell.set({
        chats,
        chatList: s.chatList.filter((c) => c.id !== id),
        activeChatId: s.activeChatId === id ? null : s.activeChatId,
      })
    } catch (err) {
      this.cell.fail(err)
    }
  }

  /** Sends a message to the active chat (a new one when none is open), with images (base64) when given. */
  async send(prompt: string, images: string[] = []): Promise<void> {
    const text = prompt.trim()
    if (!text) return
    const chatId = this.cell.get().activeChatId
    const localId = `local:${++localIds}`
    const waits = !!chatId && isStoppable(this.cell.get().chats[chatId])
    if (chatId) {
      this.cell.setChat(chatId, addLocalUserMessage(this.cell.get().chats[chatId] ?? emptyChat(chatId), localId, text, false, images))
      if (waits) this.setQueued(chatId, [...(this.cell.get().queued[chatId] ?? []), localId])
    }
    try {
      const backend = this.cell.backend
      const res = images.length > 0 ? await backend.sendImages(chatId ?? '', text, images) : await backend.send(chatId ?? '', text)
      this.cell.dismissError() // sent: what failed before is behind the user
      if (chatId && this.movesNewChats(chatId)) void this.hooks.loadConfig?.()
      if (!chatId) {
        const live = this.cell.get().chats[res.chatId] ?? emptyChat(res.chatId)
        this.cell.setChat(res.chatId, { ...addLocalUserMessage(live, localId, text, true, images), loaded: true })
        if (this.cell.get().activeChatId === null) {
          this.cell.set({ activeChatId: res.chatId })
          this.rememberOpenChat()
          void this.hooks.loadBudget()
        }
        void this.refreshChats()
      }
    } catch (err) {
      if (chatId) {
        const s = this.cell.get().chats[chatId]
        if (s) this.cell.setChat(chatId, { ...s, timeline: s.timeline.filter((e) => e.id !== localId) })
        this.setQueued(chatId, (this.cell.get().queued[chatId] ?? []).filter((id) => id !== localId))
      }
      this.cell.fail(err)
      throw err
    }
  }

  // Whether a message sent to chatId made its folder or model the ones new chats take, other
  // than those the window holds (the Go side's session follows the chat last written to): the
  // header, the folder menu and the settings (whose instructions are the folder's) must follow.
  private movesNewChats(chatId: string): boolean {
    const s = this.cell.get()
    const chat = s.chatList.find((c) => c.id === chatId)
    if (!chat || !s.config) return false
    return (!!chat.workspace && chat.workspace !== s.config.workspace) || (!!chat.model && chat.model !== s.config.model)
  }

  async stop(): Promise<void> {
    const id = this.cell.get().activeChatId
    if (!id) return
    try {
      await this.cell.backend.stop(id)
    } catch (err) {
      this.cell.fail(err)
    }
  }

  // The run takes queued messages oldest first: each injected one is announced (steering); a
  // run started after one ended takes all that were left. A stopped run takes none: those
  // leave the chat and their text goes back to the composer, so that nothing typed is lost.
  takeFromQueue(chatId: string, evs: AgentEvent[], chat: ChatState): ChatState {
    const s = this.cell.get()
    let q = s.queued[chatId]
    if (!q?.length) return chat
    let given: string[] = []
    for (const e of evs) {
      if (e.type === 'message.started' && e.role === 'user' && e.trigger === 'steering') q = q.slice(1)
      else if (e.type === 'run.started') q = []
      // a stopped run, or a summary offer closed by a Stop while messages waited for its answer
      else if ((e.type === 'run.finished' && e.stopReason === 'aborted') || (e.type === 'context.summary_answered' && e.choice === 'none')) {
        given = q
        q = []
      }
    }
    if (q !== s.queued[chatId]) this.setQueued(chatId, q)
    if (given.length === 0) return chat
    const texts = given.map((id) => chat.messages[id]?.content ?? '').filter(Boolean)
    this.giveBack(chatId, texts.join('\n\n'), given.flatMap((id) => chat.messages[id]?.images ?? []))
    const gone = new Set(given)
    return { ...chat, timeline: chat.timeline.filter((e) => !gone.has(e.id)) }
  }

  /**
   * Gives text and images back to chatId's box ('' the new chat's): the box takes them when it
   * shows that chat, and they join that chat's kept box when it shows another (what waits for a
   * chat the box left joins it too): they never land in another chat's box.
   */
  giveBack(chatId: string, text: string, images: string[]): void {
    const s = this.cell.get()
    const waiting = s.restoredFor !== chatId && (s.restoredDraft !== '' || s.restoredImages.length > 0)
    if (waiting) {
      this.hooks.keepUnsent?.(s.restoredFor, s.restoredDraft, s.restoredImages)
      this.cell.set({ restoredDraft: '', restoredImages: [] })
    }
    if (chatId !== (s.activeChatId ?? '')) {
      if (text || images.length) this.hooks.keepUnsent?.(chatId, text, images)
      return
    }
    const now = this.cell.get()
    this.cell.set({
      restoredFor: chatId,
      restoredDraft: [now.restoredDraft, text].filter(Boolean).join('\n\n'),
      restoredImages: [...now.restoredImages, ...images],
    })
  }

  /** The composer took the text given back to it. */
  takeRestoredDraft = (): string => {
    if (!this.restoredForShown()) return ''
    const text = this.cell.get().restoredDraft
    if (text) this.cell.set({ restoredDraft: '' })
    return text
  }

  /** Images for the composer from outside it (the preview's screenshot): attached as a pasted one. */
  attachImages = (images: string[]): void => {
    if (images.length) this.giveBack(this.cell.get().activeChatId ?? '', '', images)
  }

  /** The composer took the images given back to it. */
  takeRestoredImages = (): string[] => {
    if (!this.restoredForShown()) return []
    const images = this.cell.get().restoredImages
    if (images.length) this.cell.set({ restoredImages: [] })
    return images
  }

  private restoredForShown(): boolean {
    const s = this.cell.get()
    return s.restoredFor === (s.activeChatId ?? '')
  }

  /** Changes a message that waits for the run (an empty text takes it back). */
  async editQueued(localId: string, text: string): Promise<void> {
    const chatId = this.cell.get().activeChatId
    const q = chatId ? (this.cell.get().queued[chatId] ?? []) : []
    const index = q.indexOf(localId)
    if (!chatId || index < 0) return
    try {
      await this.cell.backend.editQueued(chatId, index, text.trim())
      const chat = this.cell.get().chats[chatId]
      if (text.trim()) {
        const m = chat?.messages[localId]
        if (chat && m) this.cell.setChat(chatId, { ...chat, messages: { ...chat.messages, [localId]: { ...m, content: text.trim() } } })
      } else {
        if (chat) this.cell.setChat(chatId, { ...chat, timeline: chat.timeline.filter((e) => e.id !== localId) })
        this.setQueued(chatId, q.filter((id) => id !== localId))
      }
    } catch (err) {
      this.cell.fail(err)
    }
  }

  /** Image files the user picks in a dialog (base64); none when cancelled, and a failure is said. */
  async pickImages(): Promise<string[]> {
    try {
      return await this.cell.backend.pickImages()
    } catch (err) {
      this.cell.fail(err)
      return []
    }
  }

  /** Files of the workspace whose path contains query (the composer's @ completion); none on failure. */
  async workspaceFiles(query: string): Promise<string[]> {
    try {
      return await this.cell.backend.workspaceFiles(query)
    } catch {
      return []
    }
  }

  /** Chats whose title or messages hold the query, newest first. */
  searchChats(query: string): Promise<ChatHit[]> {
    return this.cell.backend.searchChats(query)
  }

  /** The chat shown now is the one the app shows when it starts again. */
  rememberOpenChat(): void {
    this.cell.backend.setOpenChat(this.cell.get().activeChatId ?? '').catch(() => {
      // the app then opens the newest chat, as it did before it remembered
    })
  }

  private setQueued(chatId: string, ids: string[]): void {
    this.cell.set({ queued: { ...this.cell.get().queued, [chatId]: ids } })
  }
}
