import { useEffect } from 'react'
import type { AppStore } from '../state/store'
import { oldestWaitingCard, redoable, waitingOffer } from '../state/chatReducer'
import {
  alwaysAllowShortcut,
  approveShortcut,
  changesShortcut,
  denyShortcut,
  denyWithReasonShortcut,
  leaveOutShortcut,
  matches,
  networkShortcut,
  redoShortcut,
  summarizeShortcut,
  undoShortcut,
} from './shortcuts'
import { modalDialogOpen } from './typing'

/**
 * The window's keyboard: Alt+A approves and Alt+D denies the oldest call of the open chat that
 * waits for approval, Alt+R opens its "Deny and tell the model why" field and Alt+L allows its
 * tool for good in the workspace (a command: the prefix its card shows), Alt+N lets a waiting
 * command use the network or not, from anywhere in the window (the composer included); Alt+Z
 * undoes the open chat's newest run that changed files and Alt+Y redoes; Alt+C opens (or
 * closes) the review of the files the open chat changed; Alt+S and Alt+O answer the open chat's
 * offer to summarize older messages (summarize, leave them out).
 */
export function useApprovalShortcuts(store: AppStore): void {
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      if (modalDialogOpen()) return
      const st = store.getState()
      const chat = st.activeChatId ? st.chats[st.activeChatId] : undefined
      if (matches(e, changesShortcut)) {
        if (!chat) return
        e.preventDefault()
        if (st.review?.chatId === chat.chatId) store.closeReview()
        else void store.loadReview(chat.chatId)
        return
      }
      if (matches(e, undoShortcut) || matches(e, redoShortcut)) {
        // Undo the newest run that changed files; redo the last undo.
        if (!chat) return
        e.preventDefault()
        if (matches(e, undoShortcut)) void store.undo()
        else if (redoable(chat)) void store.redo()
        return
      }
      if (waitingOffer(chat) && (matches(e, summarizeShortcut) || matches(e, leaveOutShortcut))) {
        e.preventDefault()
        void store.answerSummary(matches(e, summarizeShortcut) ? 'summarize' : 'leave_out')
        return
      }
      const waiting = oldestWaitingCard(chat, st.decisions)
      if (waiting && matches(e, denyWithReasonShortcut)) {
        e.preventDefault()
        store.askReason(waiting.id)
        return
      }
      const choice = waiting ? store.commandChoice(waiting.id) : null
      if (waiting && choice && matches(e, networkShortcut)) {
        e.preventDefault()
        store.setCommandChoice(waiting.id, { network: !choice.network })
        return
      }
      if (waiting && matches(e, alwaysAllowShortcut)) {
        e.preventDefault()
        void store.allowAlways(waiting.id)
        return
      }
      const decision = matches(e, approveShortcut) ? 'allow' : matches(e, denyShortcut) ? 'deny' : null
      const card = waiting
      if (!decision || !card) return
      // The key is the shortcut's: no character reaches a focused field.
      e.preventDefault()
      void store.decide(card.id, decision)
    }
    window.addEventListener('keydown', onKeyDown)
    return () => window.removeEventListener('keydown', onKeyDown)
  }, [store])
}
