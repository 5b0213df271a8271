// Bringing a message of the open chat into view, wherever it is in the transcript: a message
// scrolled far up is not in the page until the transcript renders it, so what asks for it (a
// search's hit) asks the transcript, not the page.

type Reveal = (messageId: string) => boolean

let shown: Reveal | null = null

/** The open transcript answers revealMessage until the returned function is called. */
export function answerReveals(reveal: Reveal): () => void {
  shown = reveal
  return () => {
    if (shown === reveal) shown = null
  }
}

/**
 * Scrolls the open chat to the message and marks it found; false when no chat is open or the
 * message is not one of its entries.
 */
export function revealMessage(messageId: string): boolean {
  return shown?.(messageId) ?? false
}
