package agentloop

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"prototyper/events"
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
	return fmt.Sprintf("%s in %s's context (%s of %s tokens). Summarize %s — the same "+
		"model writes a summary you can read, kept in the chat — or leave %s out.",
		what, o.Model, tokenCount(o.Tokens), tokenCount(o.NumCtx), them, them)
}

func tokenCount(n int) string {
	if n >= 1000 {
		return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1000), ".0") + "k"
	}
	return fmt.Sprint(n)
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
	p.Offer.Choice = choice
	if err := a.answerOffer(cs.id, p.RunID, p.Offer.ID, choice); err != nil {
		return err
	}
	return a.resumeLocked(cs, events.TriggerSummary, p)
}
