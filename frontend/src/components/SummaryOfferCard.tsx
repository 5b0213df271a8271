// The offer to summarize the older messages that no longer fit the model's context: the run
// waits for the answer (Summarize, Leave out), and the card keeps showing what was chosen.

import type { OfferView } from '../state/chatReducer'
import { leaveOutShortcut, summarizeShortcut } from '../keyboard/shortcuts'
import { ShortcutButton } from './ShortcutButton'
import { ShortcutKey } from './ToolCard'

const answers: Record<string, string> = {
  summarize: 'You chose Summarize.',
  // the answer holds for the chat (the Go side offers again only after the setting changes)
  leave_out:
    'You chose Leave out: from now on this chat leaves out older messages that no longer fit without asking (the setting "When older messages no longer fit" changes it).',
  none: 'Not answered: the run was stopped.',
}

/** The answer's sentence: an offer with no answer and no wait (the app ended meanwhile) says only that. */
export function offerAnswerText(choice: string): string {
  return answers[choice] ?? 'Not answered.'
}

/** One offer; waiting says whether the chat waits for its answer (the buttons show). */
export function SummaryOfferCard({
  offer,
  waiting,
  onAnswer,
}: {
  offer: OfferView
  waiting: boolean
  onAnswer: (choice: 'summarize' | 'leave_out') => void
}) {
  const open = waiting && !offer.choice
  return (
    <section
      className={`summary-offer${open ? ' waiting' : ''}`}
      role="group"
      aria-label="Older messages no longer fit"
      data-testid="summary-offer"
      data-offer-id={offer.id}
      data-choice={offer.choice || (open ? 'waiting' : 'none')}
    >
      <p>{offer.text}</p>
      {open ? (
        <div className="approval-actions">
          <ShortcutButton
            shortcut={summarizeShortcut}
            what="The same model writes a summary you can read, kept in the chat"
            className="primary"
            onClick={() => onAnswer('summarize')}
          >
            Summarize
            <ShortcutKey shortcut={summarizeShortcut} />
          </ShortcutButton>
          <ShortcutButton
            shortcut={leaveOutShortcut}
            what="Send the chat without the older messages"
            className="secondary"
            onClick={() => onAnswer('leave_out')}
          >
            Leave out
            <ShortcutKey shortcut={leaveOutShortcut} />
          </ShortcutButton>
        </div>
      ) : (
        <p className="muted small" data-testid="summary-offer-answer">
          {offerAnswerText(offer.choice)}
        </p>
      )}
    </section>
  )
}
