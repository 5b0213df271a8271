package agentloop

import (
	"encoding/json"

	"prototyper/events"
	"prototyper/store"
)

// A paused run waits for the user's answer: a decision on each of its calls that wait for
// approval, or a choice on its summary offer. The window's answers ([Agent.Decide],
// [Agent.AllowCommand], [Agent.AnswerSummary]) and `prototyper run --chat ID`'s ([Agent.RunOnce]
// with RunOptions.Decide or Summarize) all go through answerLocked: applied to the paused
// state and said in one way, and the run that resumes the chat started once nothing waits
// any more. Only who executes that run differs: the window's in the background, `run`'s
// while it waits. A decision that `run` gives with a message of its own is applied and said
// the same way (decideLocked, answerLocked's first step), and the message's run then closes
// the batch as a reply in the window does.

// pausedRun is the persisted state of a run paused on approvals or on a summary offer
// (store.Run.State): what it waits for, and the options the run that resumes it keeps.
type pausedRun struct {
	RunID      string        `json:"-"`
	MessageID  string        `json:"messageId"`
	Model      string        `json:"model"`
	Think      string        `json:"think,omitempty"`
	Approve    string        `json:"approve,omitempty"`
	MaxSteps   int           `json:"maxSteps,omitempty"`
	NumPredict int           `json:"numPredict,omitempty"`
	Calls      []plannedCall `json:"calls"`
	// Summarize and Offer: a run paused on a summary offer (no calls) carries its policy and
	// the offer, whose Choice the answer fills in.
	Summarize string              `json:"summarize,omitempty"`
	Offer     *store.SummaryOffer `json:"offer,omitempty"`
}

// offers reports whether p is a run paused on a summary offer (false when p is nil).
func (p *pausedRun) offers() bool { return p != nil && p.Offer != nil }

// index returns the position of the call toolCallID in the batch, or -1 (also when p is nil).
func (p *pausedRun) index(toolCallID string) int {
	if p == nil {
		return -1
	}
	for i, c := range p.Calls {
		if c.ID == toolCallID {
			return i
		}
	}
	return -1
}

// undecided counts the calls of the batch that still wait for the user's decision.
func (p *pausedRun) undecided() int {
	n := 0
	for _, c := range p.Calls {
		if c.Outcome == nil && c.Policy == ApproveAsk && c.Decision == "" {
			n++
		}
	}
	return n
}

// userAnswer is the user's answer to what a chat's paused run waits for: a decision (allow or
// deny, with its reason) on the call callID, or on every call still undecided when callID
// is ""; or, when choice is set, the choice on the summary offer (store.SummaryChoice*).
type userAnswer struct {
	callID           string
	decision, reason string
	choice           string
}

// answerLocked applies ans to the chat's paused run and says it. When nothing waits any
// more, it starts the run that resumes the chat (with opts) and returns it, for the caller
// to execute once cs.mu is released; it returns no run while other calls of the batch wait.
// A summary choice is kept and said only once that run has started (an answer that starts
// nothing leaves the offer waiting); when keeping it fails, the run is returned with the
// error. cs.mu must be held, and cs.paused must wait for ans.
func (a *Agent) answerLocked(cs *chatState, ans userAnswer, opts RunOptions) (*run, error) {
	p := cs.paused
	if ans.choice != "" {
		p.Offer.Choice = ans.choice
		r, err := a.startLocked(cs, startSpec{trigger: events.TriggerSummary, resume: p, opts: opts})
		if err != nil {
			p.Offer.Choice = ""
			return nil, err
		}
		return r, a.answerOffer(cs.id, p.RunID, p.Offer.ID, ans.choice)
	}
	a.decideLocked(cs, p, ans)
	if p.undecided() > 0 {
		// kept under cs.mu: another Decide may complete the batch and resume it meanwhile
		return nil, a.keepPaused(p)
	}
	if cs.done != nil {
		return nil, nil
	}
	return a.startLocked(cs, startSpec{trigger: events.TriggerApproval, resume: p, opts: opts})
}

// decideLocked records the user's decision on the calls of p that ans names and says it
// (tool.approval_resolved), without resuming anything. cs.mu must be held.
func (a *Agent) decideLocked(cs *chatState, p *pausedRun, ans userAnswer) {
	for i := range p.Calls {
		c := &p.Calls[i]
		if ans.callID != "" && c.ID != ans.callID || ans.callID == "" && (c.Policy != ApproveAsk || c.Decision != "") {
			continue
		}
		c.Decision, c.By, c.Reason = ans.decision, ByUser, ans.reason
		a.emit(events.Event{ChatID: cs.id, RunID: p.RunID, Type: events.ToolApprovalResolved,
			ToolCallID: c.ID, Name: c.Name, Decision: c.Decision, By: ByUser, Reason: c.Reason})
	}
}

// keepPaused stores the paused run's state as it stands (some of its calls decided), so
// that the decisions outlive a restart.
func (a *Agent) keepPaused(p *pausedRun) error {
	state, err := json.Marshal(p)
	if err != nil {
		return err
	}
	_, err = a.cfg.Store.UpdateRun(p.RunID, func(r *store.Run) { r.State = state })
	return err
}
