import { useEffect } from 'react'
import { oldestWaitingCard } from '../state/chatReducer'
import type { AppStore } from '../state/store'
import { approveShortcut, denyShortcut, matches } from './shortcuts'
import { modalDialogOpen, watchTyping } from './typing'

/**
 * The window's keyboard: Alt+A approves and Alt+D denies the oldest call of the open chat that
 * waits for approval, from anywhere in the window (the composer included); and the typing watch
 * that keeps the Approve button from taking the focus while the user types.
 */
export function useApprovalShortcuts(store: AppStore): void {
  useEffect(() => {
    const onKeyDown = (e: KeyboardEvent) => {
      const decision = matches(e, approveShortcut) ? 'allow' : matches(e, denyShortcut) ? 'deny' : null
      if (!decision || modalDialogOpen()) return
      const s = store.getState()
      const card = oldestWaitingCard(s.activeChatId ? s.chats[s.activeChatId] : undefined, s.decisions)
      if (!card) return
      // The key is the shortcut's: no character reaches a focused field.
      e.preventDefault()
      void store.decide(card.id, decision)
    }
    window.addEventListener('keydown', onKeyDown)
    const stopWatching = watchTyping(document)
    return () => {
      window.removeEventListener('keydown', onKeyDown)
      stopWatching()
    }
  }, [store])
}
