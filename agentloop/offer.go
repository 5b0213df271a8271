package agentloop

import (
	"context"
	"errors"
	"fmt"

	"prototyper/events"
	"prototyper/model/vocab"
	"prototyper/store"
)

// Before the budget leaves older turns out of a prompt, the user is offered a summary of
// them (the setting store.Settings.OlderTurns, `run --summarize`): the run pauses before the
// model request, the way a run pauses on an approval (stop reason awaiting_summary, phase
// awaiting_summary, its state in the store so that the offer survives a restart), and
// [Agent.AnswerSummary] resumes the chat with the answer. A terminal answers at once through
// an [Offerer]. The offer and its answer are kept with the run (store.RunNote.Offer).

// Offerer answers a summary offer synchronously (a terminal prompt) with a
// store.SummaryChoice*. Without one, a run pauses on the offer and waits for
// [Agent.AnswerSummary]. It returns when ctx is done.
type Offerer interface {
	OfferSummary(ctx context.Context, chatID string, offer store.SummaryOffer) (choice string, err error)
}

// errOfferWaits ends a turn whose older messages wait for the user's answer.
var errOfferWaits = errors.New("the summary offer waits for an answer")

// OfferSentence is the offer as the user reads it.
func OfferSentence(o store.SummaryOffer) string {
	what, them := fmt.Sprintf("%d earlier messages no longer fit", o.Messages), "them"
	if o.Messages == 1 {
		what, them = "1 earlier message no longer fits", "it"
	}
	tokens, ctx := vocab.TokenCounts(o.Tokens, o.NumCtx)
	return fmt.Sprintf("%s in %s's context (%s of %s tokens). Summarize %s — the same "+
		"model writes a summary you can read, kept in the chat — or leave %s out.",
		what, o.Model, tokens, ctx, them, them)
}

// olderTurns decides what happens to the older messages the budget would leave out: a
// store.SummaryChoice*, or errOfferWaits when the run pauses on the offer (r.offerPause).
// An answer holds for the rest of the run.
func (r *run) olderTurns(fit fitResult) (string, error) {
	if r.offerChoice != "" {
		return r.offerChoice, nil
	}
	switch r.opts.Summarize {
	case store.SummarizeAlways:
		return store.SummaryChoiceSummarize, nil
	case store.SummarizeNever:
		return store.SummaryChoiceLeaveOut, nil
	}
	if older, _ := summarizable(condensed(r.history)); len(older) == 0 {
		return store.SummaryChoiceLeaveOut, nil // nothing a summary could stand for
	}
	if r.a.leavesOut(r.cs.id) {
		r.offerChoice = store.SummaryChoiceLeaveOut
		return r.offerChoice, nil
	}
	if r.ctx.Err() != nil {
		return "", r.ctx.Err() // stopped: no offer is left waiting for a run that ended
	}
	offer := store.SummaryOffer{ID: "offer_" + r.id, Messages: fit.dropped, Tokens: fit.whole, NumCtx: r.numCtx,
		Model: r.opts.Model}
	if _, err := r.a.cfg.Store.AddRunNote(r.id, store.RunNote{Message: OfferSentence(offer), Offer: &offer}); err != nil {
		return "", err
	}
	r.emit(events.Event{Type: events.SummaryOffered, OfferID: offer.ID, DroppedMessages: offer.Messages,
		EstimatedTokens: offer.Tokens, NumCtx: offer.NumCtx, Model: offer.Model, Message: OfferSentence(offer)})
	if r.opts.Offerer == nil {
		r.offerPause = &pausedRun{RunID: r.id, Model: r.opts.Model, Think: r.opts.Think, Approve: r.opts.Approve,
			MaxSteps: r.opts.MaxSteps, NumPredict: r.opts.NumPredict, Summarize: r.opts.Summarize, Offer: &offer}
		return "", errOfferWaits
	}
	r.phase(events.PhaseAwaitingSummary)
	choice, err := r.opts.Offerer.OfferSummary(r.ctx, r.cs.id, offer)
	if err != nil || (choice != store.SummaryChoiceSummarize && choice != store.SummaryChoiceLeaveOut) {
		choice = store.SummaryChoiceNone
	}
	if err := r.a.answerOffer(r.cs.id, r.id, offer.ID, choice); err != nil {
		return "", err
	}
	if r.ctx.Err() != nil {
		return "", r.ctx.Err()
	}
	r.phase(events.PhaseSubmitted)
	r.offerChoice = choice
	return choice, nil
}

// pauseOnOffer ends the run that made an offer: paused on it, or, when Stop came as the
// offer was made, stopped with the offer closed unanswered (as a Stop closes a waiting one).
func (r *run) pauseOnOffer() (string, *pausedRun) {
	if r.ctx.Err() == nil {
		return events.StopAwaitingSummary, r.offerPause
	}
	if err := r.a.answerOffer(r.cs.id, r.id, r.offerPause.Offer.ID, store.SummaryChoiceNone); err != nil {
		r.err = err
	}
	return events.StopAborted, nil
}

// leavesOut reports whether the user answered the chat's last answered offer with "leave
// out": that answer holds for the chat, whose later messages that no longer fit are left out
// without asking again (while the setting is ask).
func (a *Agent) leavesOut(chatID string) bool {
	runs, err := a.cfg.Store.RunsOf(chatID)
	if err != nil {
		return false
	}
	for i := len(runs) - 1; i >= 0; i-- {
		for j := len(runs[i].Notes) - 1; j >= 0; j-- {
			if o := runs[i].Notes[j].Offer; o != nil && o.Choice != "" && o.Choice != store.SummaryChoiceNone {
				return o.Choice == store.SummaryChoiceLeaveOut
			}
		}
	}
	return false
}

// keepWhileOffered stores at once a message the user sent while the chat waits for the
// answer to a summary offer, so that a restart loses nothing: the run the answer resumes
// reads it from the chat, and a Stop leaves it in the chat. It is announced as a queued
// message joining a run is (message.started, trigger steering), so that the window shows it
// as sent, not queued. cs.mu must be held.
func (a *Agent) keepWhileOffered(cs *chatState, q userMessage) error {
	m, err := a.cfg.Store.AppendMessage(cs.id, store.Message{Role: store.RoleUser, Content: q.text, Images: q.images,
		Files: q.files, Complete: true})
	if err != nil {
		return err
	}
	a.emit(events.Event{ChatID: cs.id, MessageID: m.ID, Type: events.MessageStarted, Role: store.RoleUser,
		Trigger: events.TriggerSteering})
	return nil
}

// keepQueuedWhileOffered stores the messages still queued when a run pauses on an offer
// (sent after its last safe point), as keepWhileOffered does. cs.mu must be held.
func (a *Agent) keepQueuedWhileOffered(cs *chatState) {
	if !cs.paused.offers() {
		return
	}
	for i, q := range cs.queue {
		if err := a.keepWhileOffered(cs, q); err != nil {
			cs.queue = cs.queue[i:] // kept in memory: joins the run the answer resumes
			a.emit(events.Event{ChatID: cs.id, Type: events.Error, Code: "internal",
				Message: "Your message could not be saved: " + err.Error() + "; it waits for your answer to the offer"})
			_ = a.keepQueue(cs)
			return
		}
	}
	cs.queue = nil
	_ = a.keepQueue(cs) // stored as the chat's
}

// answerOffer keeps the answer to an offer with its run and says it.
func (a *Agent) answerOffer(chatID, runID, offerID, choice string) error {
	_, err := a.cfg.Store.UpdateRun(runID, func(r *store.Run) {
		for _, n := range r.Notes {
			if n.Offer != nil && n.Offer.ID == offerID {
				n.Offer.Choice = choice
			}
		}
	})
	a.emit(events.Event{ChatID: chatID, RunID: runID, Type: events.SummaryAnswered, OfferID: offerID, Choice: choice})
	return err
}

// The errors of answering a summary offer ([Agent.AnswerSummary]) and of running a chat that
// waits for that answer.
var (
	// ErrNoSummaryOffer is returned by AnswerSummary for a chat that waits for no answer to
	// a summary offer (none was made, it was answered, or the run was stopped).
	ErrNoSummaryOffer = errors.New("no offer to summarize older messages waits for an answer in this chat")
	// ErrSummaryOfferWaits is returned by RunOnce, without a prompt, for a chat paused on a
	// summary offer when RunOptions.Summarize does not answer it.
	ErrSummaryOfferWaits = errors.New("the chat waits for an answer to its offer to summarize older messages")
	// ErrBadSummaryChoice is returned by AnswerSummary for an answer other than summarize or
	// leave_out.
	ErrBadSummaryChoice = errors.New("the answer to a summary offer is summarize or leave_out")
)

// AnswerSummary answers the summary offer a chat's paused run waits for
// (store.SummaryChoiceSummarize or store.SummaryChoiceLeaveOut) and resumes the chat in the
// background, with the messages the user sent meanwhile (also after a restart: the offer
// is in the store).
func (a *Agent) AnswerSummary(chatID, choice string) error {
	if choice != store.SummaryChoiceSummarize && choice != store.SummaryChoiceLeaveOut {
		return ErrBadSummaryChoice
	}
	cs := a.known(chatID)
	if cs == nil {
		return ErrNoSummaryOffer
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	p := cs.paused
	if p == nil || p.Offer == nil || cs.done != nil {
		return ErrNoSummaryOffer
	}
	r, err := a.answerLocked(cs, userAnswer{choice: choice}, RunOptions{})
	if r != nil {
		go r.execute()
	}
	return err
}
