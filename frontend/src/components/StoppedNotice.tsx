import { holdsAnswerToContinue } from '../state/stoppedAnswer'
import { useAppState, useStore } from '../state/useAppState'

/** The words a stopped run is continued with: a message of the user's, as if typed. */
export const continueText = 'Continue'

/**
 * "Stopped." where the user stopped a run, and, at the chat's end, the ways on: Continue (a
 * message asking the model to go on, in the same chat), offered where the run left something of
 * an answer, and Regenerate (the last message sent again: a new version of the answer, the
 * stopped one kept as an earlier version).
 */
export function StoppedNotice({ text, last }: { text: string; last: boolean }) {
  const store = useStore()
  const idle = useAppState((s) => (s.activeChatId ? s.chats[s.activeChatId]?.phase : 'idle') === 'idle')
  const canContinue = useAppState((s) => {
    const chat = s.activeChatId ? s.chats[s.activeChatId] : undefined
    return !!chat && holdsAnswerToContinue(chat)
  })
  return (
    <div className="notice info stopped" data-testid="notice">
      <span>{text}</span>
      {last && (
        <span className="notice-actions">
          {canContinue && (
            <button
              type="button"
              aria-label="Continue the stopped answer"
              title="Ask the model to go on from where it stopped"
              disabled={!idle}
              onClick={() => void store.send(continueText)}
            >
              Continue
            </button>
          )}
          <button
            type="button"
            aria-label="Regenerate the stopped answer"
            title="Ask again, keeping the stopped answer as an earlier version"
            disabled={!idle}
            onClick={() => void store.retry()}
          >
            Regenerate
          </button>
        </span>
      )}
    </div>
  )
}
