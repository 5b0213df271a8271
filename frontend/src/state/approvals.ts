// Answers to what a run asks: a tool call waiting for approval (allow, deny with a reason,
// always allow; for a command, its network and the prefix to always allow), and the offer to
// summarize older messages. A call is answered once: its buttons are spent until the Go side
// refuses the answer.

import type { Decision } from '../backend'
import type { CommandChoice, StateCell } from './appState'
import { waitingOffer, type OfferView, type ToolCard as ToolCardModel } from './chatReducer'

/**
 * The prefix offered to always allow for a command: the one the Go side suggests, which is
 * empty when no prefix covers only what the line runs (a bare shell): then the user writes one.
 */
export function suggestedPattern(card: Pick<ToolCardModel, 'preview'>): string {
  return card.preview?.command?.pattern ?? ''
}

export class Approvals {
  /** settingsChanged is called once an "always allow" is stored (the rules are read again). */
  constructor(
    private readonly cell: StateCell,
    private readonly settingsChanged: () => Promise<void>,
  ) {}

  /** What the user chose on a waiting command's card; null for a call of another tool. */
  commandChoice(toolCallId: string): CommandChoice | null {
    const card = this.cardOf(toolCallId)
    if (card?.name !== 'run_command') return null
    return this.cell.get().commandChoices[toolCallId] ?? { network: false, pattern: suggestedPattern(card) }
  }

  /** Changes what the user chose on a waiting command's card (ignored once it is answered). */
  setCommandChoice(toolCallId: string, patch: Partial<CommandChoice>): void {
    const now = this.commandChoice(toolCallId)
    if (!now || this.cell.get().decisions[toolCallId]) return
    this.cell.set({ commandChoices: { ...this.cell.get().commandChoices, [toolCallId]: { ...now, ...patch } } })
  }

  /** Answers a tool call that waits for approval; a call is answered once. A command allowed with network says so. */
  async decide(toolCallId: string, decision: Decision, reason = ''): Promise<void> {
    if (this.cell.get().decisions[toolCallId]) return
    const choice = this.commandChoice(toolCallId)
    this.cell.set({ decisions: { ...this.cell.get().decisions, [toolCallId]: decision } })
    try {
      if (decision === 'allow' && choice?.network) await this.cell.backend.allowCommand(toolCallId, true, '')
      else await this.cell.backend.decide(toolCallId, decision, reason)
    } catch (err) {
      // Refused: the buttons work again, and the error says why.
      this.undecide(toolCallId)
      this.cell.fail(err)
    }
  }

  /**
   * Allows the call and every later call of its tool in the chat's workspace; for a command,
   * every later command starting with the prefix the card shows (none written: nothing is done).
   */
  async allowAlways(toolCallId: string): Promise<void> {
    if (this.cell.get().decisions[toolCallId]) return
    const choice = this.commandChoice(toolCallId)
    if (choice && !choice.pattern.trim()) return
    this.cell.set({ decisions: { ...this.cell.get().decisions, [toolCallId]: 'allow' } })
    try {
      if (choice) await this.cell.backend.allowCommand(toolCallId, choice.network, choice.pattern.trim())
      else await this.cell.backend.allowAlways(toolCallId)
      await this.settingsChanged()
    } catch (err) {
      this.undecide(toolCallId)
      this.cell.fail(err)
    }
  }

  /** Opens (or, with null, closes) the reason field of a waiting call. */
  askReason(toolCallId: string | null): void {
    this.cell.set({ reasonFor: toolCallId })
  }

  /**
   * Answers the open chat's offer to summarize the older messages that no longer fit: the card
   * shows the answer at once (a second press finds no offer), and the chat goes on.
   */
  async answerSummary(choice: 'summarize' | 'leave_out'): Promise<void> {
    const chatId = this.cell.get().activeChatId
    const chat = chatId ? this.cell.get().chats[chatId] : undefined
    const offer = waitingOffer(chat)
    if (!chatId || !chat || !offer) return
    const answered = (c: OfferView['choice']) => {
      const now = this.cell.get().chats[chatId]
      if (now?.offers[offer.id]) this.cell.setChat(chatId, { ...now, offers: { ...now.offers, [offer.id]: { ...now.offers[offer.id], choice: c } } })
    }
    answered(choice)
    try {
      await this.cell.backend.answerSummaryOffer(chatId, choice)
    } catch (err) {
      answered('') // refused: the buttons work again, and the error says why
      this.cell.fail(err)
    }
  }

  private undecide(toolCallId: string): void {
    const decisions = { ...this.cell.get().decisions }
    delete decisions[toolCallId]
    this.cell.set({ decisions })
  }

  /** The card of a call, in whichever chat holds it. */
  private cardOf(toolCallId: string): ToolCardModel | undefined {
    const s = this.cell.get()
    const active = s.activeChatId ? s.chats[s.activeChatId] : undefined
    if (active?.tools[toolCallId]) return active.tools[toolCallId]
    for (const chat of Object.values(s.chats)) if (chat.tools[toolCallId]) return chat.tools[toolCallId]
    return undefined
  }
}
